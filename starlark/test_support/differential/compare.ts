/**
 * One outcome shape for both runners, so a differential test compares like with like.
 *
 * Error classes shared by both sides: syntax, resolve, runtime, conversion (final value not
 * JSON-convertible), steps (step budget), timeout, limit (our other budgets: bytes, depth, host
 * calls — starlark-go has no equivalent), host.
 */
import type { ErrorCode, RunResult } from "../../api_types.ts";
import type { GoResult } from "./go_runner.ts";
import { newerText } from "./newer.ts";

export interface Outcome {
  ok: boolean;
  value?: unknown;
  errorClass?: string;
  message?: string;
  /** Position of a runtime error: the innermost frame in the program. */
  line?: number;
  col?: number;
  steps: number;
}

const CLASS_OF_CODE: Record<ErrorCode, string> = {
  "syntax_error": "syntax",
  "resolve_error": "resolve",
  "eval_error": "runtime",
  "fail": "runtime",
  "no_main": "runtime",
  "result_not_convertible": "conversion",
  "host_call_not_allowed": "runtime",
  "host_argument_not_convertible": "runtime",
  "max_steps": "steps",
  "timeout": "timeout",
  "max_host_calls": "limit",
  "max_depth": "limit",
  "max_bytes": "limit",
  "max_alloc": "limit",
  "host_error": "host",
};

function errorClassOf(code: ErrorCode): string {
  return CLASS_OF_CODE[code] ?? `unknown:${code}`;
}

export function fromGo(result: GoResult): Outcome {
  if (result.ok) return { ok: true, value: result.value, steps: result.steps };
  const outcome: Outcome = {
    ok: false,
    errorClass: result.errorClass,
    message: result.message === undefined ? undefined : newerText(result.message),
    steps: result.steps,
  };
  if (result.errorClass === "runtime") {
    Object.assign(outcome, { line: result.line, col: result.col });
  }
  return outcome;
}

export function fromOurs(result: RunResult): Outcome {
  if (result.ok) return { ok: true, value: result.value, steps: result.steps };
  const errorClass = errorClassOf(result.error.code);
  const outcome: Outcome = {
    ok: false,
    errorClass,
    message: result.error.message,
    steps: result.error.steps,
  };
  if (errorClass === "runtime") {
    Object.assign(outcome, { line: result.error.line, col: result.error.col });
  }
  return outcome;
}

/**
 * Deep equality of converted values. Numbers compare by value whatever their JS type (an int
 * beyond 2^53 may be a bigint on one side); -0 equals 0 because JSON cannot tell them apart.
 */
export function sameValue(a: unknown, b: unknown, ulps = 0): boolean {
  if (
    (typeof a === "number" || typeof a === "bigint") &&
    (typeof b === "number" || typeof b === "bigint")
  ) {
    if (typeof a === "number" && typeof b === "number") {
      return a === b || (a !== a && b !== b) || (ulps > 0 && ulpDistance(a, b) <= ulps);
    }
    // deno-lint-ignore eqeqeq -- loose comparison is exactly bigint/number value equality
    return a == b;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => sameValue(x, b[i], ulps));
  }
  if (a && b && typeof a === "object" && typeof b === "object") {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length || ka.some((k, i) => k !== kb[i])) return false;
    return ka.every((k) =>
      sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], ulps)
    );
  }
  return a === b;
}

/** How many representable doubles lie between a and b (same sign; else Infinity). */
function ulpDistance(a: number, b: number): number {
  if (!Number.isFinite(a) || !Number.isFinite(b) || Math.sign(a) !== Math.sign(b)) return Infinity;
  const view = new DataView(new ArrayBuffer(16));
  view.setFloat64(0, Math.abs(a));
  view.setFloat64(8, Math.abs(b));
  const d = view.getBigInt64(0) - view.getBigInt64(8);
  return Number(d < 0n ? -d : d);
}

/**
 * Why two outcomes differ, or undefined when they agree. Messages are compared only when asked:
 * always, or "static" for syntax and resolve errors only (their text includes the position).
 */
export function difference(
  ours: Outcome,
  go: Outcome,
  options: {
    compareMessages?: boolean | "static";
    comparePositions?: boolean;
    /** Floats may differ by this many ulps (transcendental functions: Go's libm vs V8's). */
    floatUlps?: number;
  } = {},
): string | undefined {
  if (ours.ok !== go.ok || ours.errorClass !== go.errorClass) {
    return `outcome differs: ours ${describe(ours)}; go ${describe(go)}`;
  }
  if (ours.ok && !sameValue(ours.value, go.value, options.floatUlps ?? 0)) {
    return `value differs: ours ${show(ours.value)}; go ${show(go.value)}`;
  }
  const messages = options.compareMessages === "static"
    ? go.errorClass === "syntax" || go.errorClass === "resolve"
    : options.compareMessages;
  if (!ours.ok && messages && ours.message !== go.message) {
    return `message differs: ours ${JSON.stringify(ours.message)}; go ${
      JSON.stringify(go.message)
    }`;
  }
  if (
    !ours.ok && options.comparePositions && go.line !== undefined &&
    (ours.line !== go.line || ours.col !== go.col)
  ) {
    return `error position differs: ours ${ours.line}:${ours.col}; go ${go.line}:${go.col} (${go.message})`;
  }
  return undefined;
}

function describe(o: Outcome): string {
  return o.ok ? `ok ${show(o.value)}` : `${o.errorClass} error ${JSON.stringify(o.message)}`;
}

function show(v: unknown): string {
  return JSON.stringify(v, (_k, x) => typeof x === "bigint" ? `${x}n` : x);
}
