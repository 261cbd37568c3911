/**
 * `run`: execute a program with predeclared host values and budgets.
 *
 * Host functions may return Promises. The evaluator is synchronous (fast path); when a host
 * call returns a Promise, the attempt is abandoned (a Suspend unwinds the JS stack), the
 * Promise is awaited, its result appended to a log, and the program re-executed from the
 * start with logged results replayed in order. Host functions are never called twice.
 * Execution is deterministic (no clock, no randomness), so the replay reaches the same call.
 */
import type { Json, JsonData, RunErrorInfo, RunOptions, RunResult } from "./api_types.ts";
import { EvalError, LimitError, StarlarkError } from "./errors.ts";
import { callValue } from "./eval/call.ts";
import { execProgram } from "./eval/exec.ts";
import { fromHost, toHost, wrapHost } from "./host.ts";
import { type CompiledHandle, parse, type Program } from "./program.ts";
import { Thread } from "./thread.ts";
import { utf8Decode } from "./values/bytes_text.ts";
import { Builtin, Fn, type NativeFn, type Value } from "./values/value.ts";

/** Thrown through the interpreter when a host call is pending. */
class Suspend {
  constructor(readonly promise: Promise<unknown>) {}
}

interface LogEntry {
  ok: boolean;
  value: unknown;
}

/** A host function failed; carries the thrown value. */
class HostError extends EvalError {
  constructor(name: string, cause: unknown) {
    super(
      `${name}: ${cause instanceof Error ? cause.message : String(cause)}`,
      "host_error",
      "host",
    );
    this.cause = cause;
  }
}

function errorInfo(e: unknown, steps: number): RunErrorInfo {
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
  throw e;
}

function isThenable(x: unknown): x is Promise<unknown> {
  return x !== null && (typeof x === "object" || typeof x === "function") &&
    typeof (x as { then?: unknown }).then === "function";
}

function sameNames(a: readonly string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Run a program (or source text). Never throws for program errors; see RunResult. */
export async function run(program: Program | string, options: RunOptions = {}): Promise<RunResult> {
  const predeclared = options.predeclared ?? {};
  const names = Object.keys(predeclared).sort();
  let handle: CompiledHandle;
  try {
    if (typeof program === "string") {
      handle = parse(program, { filename: options.filename, predeclared: names }) as CompiledHandle;
    } else if (!sameNames(program.predeclared, names)) {
      handle = parse(program.source, {
        filename: program.filename,
        predeclared: names,
      }) as CompiledHandle;
    } else {
      handle = program as CompiledHandle;
    }
  } catch (e) {
    return { ok: false, error: errorInfo(e, 0) };
  }
  const b = options.budgets ?? {};
  const now = options.now ?? (() => performance.now());
  const deadline = b.timeoutMs !== undefined ? now() + b.timeoutMs : Infinity;
  const limits = { maxDepth: b.maxDepth ?? Infinity, maxBytes: b.maxBytes ?? Infinity };
  const log: LogEntry[] = [];
  const print = options.print;

  for (;;) {
    const th = new Thread({
      maxSteps: b.maxSteps,
      timeoutMs: deadline === Infinity ? undefined : deadline - now(),
      maxHostCalls: b.maxHostCalls,
      maxDepth: b.maxDepth,
      maxBytes: b.maxBytes,
      now,
      print: print ? (line) => print(utf8Decode(line)) : undefined,
    });
    th.hostAllowed = options.topLevelHostCalls !== false;
    let replay = 0;
    const makeFn =
      (name: string, f: (...a: unknown[]) => unknown): NativeFn => (t: Thread, args, kwargs) => {
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
        let entry: LogEntry;
        if (replay < log.length) {
          entry = log[replay++];
        } else {
          const strict = { int64: false, code: "host_argument_not_convertible" as const };
          const jsArgs = args.map((a, i) => toHost(a, limits, `${name} argument ${i + 1}`, strict));
          const jsKw: Record<string, JsonData> = {};
          for (const [k, v] of kwargs ?? []) {
            jsKw[k] = toHost(v, limits, `${name} argument ${k}`, strict);
          }
          let r: unknown;
          try {
            r = f(jsArgs, jsKw);
          } catch (e) {
            r = Promise.reject(e);
          }
          if (isThenable(r)) throw new Suspend(r);
          entry = { ok: true, value: r };
          log.push(entry);
          replay++;
        }
        if (!entry.ok) throw new HostError(name, entry.value);
        return fromHost(entry.value, limits, `${name} result`);
      };
    th.predeclared = new Map(names.map((n) => [n, wrapHost(n, predeclared[n], makeFn, limits)]));
    try {
      const globals = execProgram(handle.compiled, th);
      let result: Value = null;
      const main = globals.get("main");
      if (options.callMain !== false && main !== undefined) {
        if (!(main instanceof Fn) && !(main instanceof Builtin)) {
          throw new EvalError(
            `main is a ${
              typeof main === "object" && main !== null ? main.type : typeof main
            }, not a function`,
            "no_main",
          );
        }
        th.hostAllowed = true;
        result = callValue(th, main, [], null);
      } else if (options.requireMain) {
        throw new EvalError("program does not define main()", "no_main");
      }
      const value = toHost(result, limits, "result", {
        int64: true,
        code: "result_not_convertible",
      });
      return { ok: true, value, steps: th.steps, hostCalls: th.hostCalls };
    } catch (e) {
      if (e instanceof Suspend) {
        const entry = await settle(e.promise, deadline, now);
        if (entry === null) {
          return {
            ok: false,
            error: {
              kind: "limit",
              code: "timeout",
              message: "Starlark computation cancelled: timeout",
              steps: th.steps,
            },
          };
        }
        log.push(entry);
        continue;
      }
      return { ok: false, error: errorInfo(e, th.steps) };
    }
  }
}

/** Await a host promise, but no longer than the deadline (null on timeout). */
async function settle(
  p: Promise<unknown>,
  deadline: number,
  now: () => number,
): Promise<LogEntry | null> {
  const wrapped = p.then((value) => ({ ok: true, value }), (value) => ({ ok: false, value }));
  if (deadline === Infinity) return await wrapped;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), Math.max(0, deadline - now()));
  });
  try {
    return await Promise.race([wrapped, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export type { Json };
