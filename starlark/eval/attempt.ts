/**
 * One execution of a program (top level, then main) against a host bridge. Used on the main
 * thread (synchronous fast path) and inside the worker (after a host call went asynchronous).
 */
import type { Budgets, JsonData, RunErrorInfo, RunResult } from "../api_types.ts";
import { EvalError, LimitError, StarlarkError } from "../errors.ts";
import { fromHost, toHost, wrapHost } from "../host.ts";
import { enter, Thread } from "../thread.ts";
import { utf8Decode, utf8Encode } from "../values/bytes_text.ts";
import { Builtin, Fn, type NativeFn, type Value } from "../values/value.ts";
import { callValue } from "./call.ts";
import type { CompiledProgram } from "./compiler.ts";
import { execProgram } from "./exec.ts";

/** Thrown through the interpreter when a host call result is not available synchronously. */
export class Suspend {
  readonly kind = "suspend";
  /** Steps executed by the abandoned attempt. */
  steps = 0;
}

/** Outcome of a host call: a value, or a failure (value = what was thrown). */
export interface HostOutcome {
  ok: boolean;
  value: unknown;
}

/** Performs host call number `index` (0-based, in program order) or throws Suspend. */
export interface HostBridge {
  call(
    index: number,
    name: string,
    args: JsonData[],
    kwargs: Record<string, JsonData>,
  ): HostOutcome;
}

export interface AttemptOptions {
  names: string[];
  /** Predeclared values; functions may be placeholders (the bridge performs calls). */
  predeclared: Record<string, unknown>;
  budgets: Budgets;
  /** Remaining wall-clock time in ms (Infinity: none). */
  timeoutMs: number;
  now: () => number;
  /** Live-heap probe for the allocation budget (see `RunOptions.heapUsed`). */
  heapUsed?: () => number;
  print?: (line: string) => void;
  callMain: boolean;
  requireMain: boolean;
  topLevelHostCalls: boolean;
  /** Float arguments reach hosts as one-element Float64Arrays (see `RunOptions`). */
  tagFloatArguments?: boolean;
  /** How a host failure's value is described in the message. */
  describeFailure?: (value: unknown) => string;
}

/** A host function failed; carries the thrown value. */
class HostError extends EvalError {
  constructor(name: string, message: string, cause: unknown) {
    super(utf8Encode(`${name}: ${message}`), "host_error", "host"); // messages are byte strings
    this.cause = cause;
  }
}

export function errorInfo(e: unknown, steps: number): RunErrorInfo {
  if (e instanceof StarlarkError) {
    return { kind: e.kind, code: e.code, message: e.message, line: e.line, col: e.col, steps };
  }
  if (e instanceof EvalError) {
    const info: RunErrorInfo = {
      kind: e.kind,
      code: e.code,
      message: utf8Decode(e.message),
      steps,
    };
    if (e.pos >= 0) {
      info.line = Math.floor(e.pos / 4096);
      info.col = e.pos % 4096;
    }
    if (e.cause !== undefined) info.cause = e.cause;
    if (e.frames.length > 0) {
      info.backtrace = e.frames.slice().reverse().map((f) =>
        `${f.filename}:${f.line}:${f.col}: in ${f.fn}`
      );
    }
    return info;
  }
  // JS-level failures must not escape run(): map them to structured errors
  const text = e instanceof Error ? e.message : String(e);
  if (e instanceof RangeError && /call stack/i.test(text)) {
    return {
      kind: "limit",
      code: "max_depth",
      message: "Starlark computation cancelled: value nesting too deep",
      steps,
    };
  }
  if (
    e instanceof RangeError && /(string|array|buffer) length|allocation|maximum size/i.test(text)
  ) {
    // V8 refused an allocation (string/array length, Map capacity, out of memory)
    return {
      kind: "limit",
      code: "max_alloc",
      message: "Starlark computation cancelled: out of memory",
      steps,
    };
  }
  return { kind: "runtime", code: "eval_error", message: `internal error: ${text}`, steps };
}

/** Execute once. Throws Suspend (only) when the bridge cannot answer synchronously. */
export function attempt(
  prog: CompiledProgram,
  opts: AttemptOptions,
  bridge: HostBridge,
): RunResult {
  const b = opts.budgets;
  const limits = { maxDepth: b.maxDepth ?? Infinity, maxBytes: b.maxBytes ?? Infinity };
  const print = opts.print;
  const th = new Thread({
    maxSteps: b.maxSteps,
    timeoutMs: opts.timeoutMs === Infinity ? undefined : opts.timeoutMs,
    maxHostCalls: b.maxHostCalls,
    maxDepth: b.maxDepth,
    maxBytes: b.maxBytes,
    maxAllocBytes: b.maxAllocBytes,
    heapUsed: opts.heapUsed,
    now: opts.now,
    print: print ? (line) => print(utf8Decode(line)) : undefined,
  });
  th.hostAllowed = opts.topLevelHostCalls;
  const describe = opts.describeFailure ??
    ((v: unknown) => (v instanceof Error ? v.message : String(v)));
  const makeFn = (name: string): NativeFn => (t: Thread, args, kwargs) => {
    if (!t.hostAllowed) {
      throw new EvalError(
        `${name}: host calls are only allowed while main runs`,
        "host_call_not_allowed",
      );
    }
    if (++t.hostCalls > t.maxHostCalls) {
      throw new LimitError(
        "max_host_calls",
        `Starlark computation cancelled: too many host calls (limit ${t.maxHostCalls})`,
      );
    }
    const strict = {
      int64: false,
      code: "host_argument_not_convertible" as const,
      tagFloats: opts.tagFloatArguments === true,
    };
    const jsArgs = args.map((a, i) => toHost(a, limits, `${name} argument ${i + 1}`, strict));
    const jsKw: Record<string, JsonData> = {};
    for (const [k, v] of kwargs ?? []) {
      const key = utf8Decode(k); // names are byte strings; hosts see text
      Object.defineProperty(jsKw, key, {
        value: toHost(v, limits, `${name} argument ${key}`, strict),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    const out = bridge.call(t.hostCalls - 1, name, jsArgs, jsKw);
    if (!out.ok) throw new HostError(name, describe(out.value), out.value);
    return fromHost(out.value, limits, `${name} result`);
  };
  const outer = enter(th);
  try {
    th.predeclared = new Map(
      opts.names.map((n) => [utf8Encode(n), wrapHost(n, opts.predeclared[n], makeFn, limits)]),
    );
    const globals = execProgram(prog, th);
    let result: Value = null;
    const main = globals.get("main");
    if (opts.callMain && main !== undefined) {
      if (!(main instanceof Fn) && !(main instanceof Builtin)) {
        throw new EvalError("main is not a function", "no_main");
      }
      th.hostAllowed = true;
      result = callValue(th, main, [], null);
    } else if (opts.requireMain) {
      throw new EvalError("program does not define main()", "no_main");
    }
    const value = toHost(result, limits, "result", { int64: true, code: "result_not_convertible" });
    return { ok: true, value, steps: th.steps, hostCalls: th.hostCalls };
  } catch (e) {
    if (e instanceof Suspend) {
      e.steps = th.steps;
      throw e;
    }
    return { ok: false, error: errorInfo(th.tripped ?? e, th.steps) };
  } finally {
    enter(outer);
  }
}
