/** Public types of the embedding API (see README.md). */

/** JSON-compatible data: what host functions receive/return and what `run` yields. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Like Json, but ints outside ±2^53 appear as `bigint` (results and host arguments). */
export type JsonData = Json | bigint | JsonData[] | { [key: string]: JsonData };

/**
 * A host (embedder-provided) function. Receives positional and keyword arguments converted
 * to JSON-compatible data (ints outside the safe range arrive as `bigint`), returns
 * JSON-compatible data or a Promise of it. Throwing makes the Starlark program fail with
 * kind "host" (the thrown value is kept as `error.cause`).
 */
export type HostFunction = (
  args: unknown[],
  kwargs: Record<string, unknown>,
) => unknown | Promise<unknown>;

/** A namespace of host values; appears in Starlark as a module (`records.lookup(...)`). */
export interface HostNamespace {
  /** A member, visible in Starlark as `namespace.name`. */
  [name: string]: HostValue;
}

/** A predeclared value: a function, a namespace (plain object), or plain data. */
export type HostValue = HostFunction | HostNamespace | Json | bigint;

/**
 * Resource budgets. A field left out takes its default (`DEFAULT_BUDGETS`, see README);
 * `Infinity` turns that budget off (an explicit choice).
 */
export interface Budgets {
  /** Maximum execution steps (deterministic count; see README for what a step is). */
  maxSteps?: number;
  /** Wall-clock limit in milliseconds, checked while stepping. */
  timeoutMs?: number;
  /** Maximum number of host (native) calls. */
  maxHostCalls?: number;
  /** Maximum value depth (scalar = 1, each list/tuple/dict adds 1): host args, host results, final value. */
  maxDepth?: number;
  /** Maximum size in bytes of a single value (encoded as compact JSON for host args/results/final
   * value; also the allocation bound for strings, lists and dicts built by the program). */
  maxBytes?: number;
  /**
   * Bytes the program may allocate in total for strings, bytes, lists, tuples, dicts and big
   * ints (charged when they are built; see README "Memory"). Bounds the program's peak heap.
   */
  maxAllocBytes?: number;
}

/** Error kinds. "limit" = a budget was exceeded (map to "resource limit exceeded"). */
export type ErrorKind = "syntax" | "resolve" | "runtime" | "limit" | "host";

/**
 * Stable error codes.
 * - syntax/resolve: "syntax_error", "resolve_error"
 * - runtime: "eval_error" (any dynamic Starlark error), "fail" (the `fail` builtin),
 *   "no_main" (requireMain and main undefined), "result_not_convertible",
 *   "host_call_not_allowed" (host call at top level with topLevelHostCalls=false),
 *   "host_argument_not_convertible"
 * - limit: "max_steps", "timeout", "max_host_calls", "max_depth", "max_bytes", "max_alloc"
 * - host: "host_error" (a host function threw or rejected; see `cause`)
 */
export type ErrorCode =
  | "syntax_error"
  | "resolve_error"
  | "eval_error"
  | "fail"
  | "no_main"
  | "result_not_convertible"
  | "host_call_not_allowed"
  | "host_argument_not_convertible"
  | "max_steps"
  | "timeout"
  | "max_host_calls"
  | "max_depth"
  | "max_bytes"
  | "max_alloc"
  | "host_error";

/** Why a run failed (`RunResult` with `ok: false`). */
export interface RunErrorInfo {
  /** The stage or cause: syntax, resolve, runtime, limit or host. */
  kind: ErrorKind;
  /** The stable error code (one per kind, one per budget). */
  code: ErrorCode;
  /** Message text as starlark-go prints it (static errors: "<file>:line:col: msg"). */
  message: string;
  /** 1-based position of the error (innermost Starlark frame for dynamic errors). */
  line?: number;
  /** 1-based column of the error, with `line`. */
  col?: number;
  /** Steps used before the error. */
  steps: number;
  /** For kind "host": the value the host function threw. */
  cause?: unknown;
  /** Starlark call stack, outermost first, as "file:line:col: in fn" lines. */
  backtrace?: string[];
}

/**
 * The outcome of `run`: the JSON value `main()` returned (or null), with the steps and host calls
 * used, or the error.
 */
export type RunResult =
  | { ok: true; value: JsonData; steps: number; hostCalls: number }
  | { ok: false; error: RunErrorInfo };

/** Options of `parse`. */
export interface ParseOptions {
  /** File name used in positions. @default "<program>" */
  filename?: string;
  /** Names of host-provided globals the program may use (others are `undefined: x`). */
  predeclared?: Iterable<string>;
}

/** Options of `run`. */
export interface RunOptions extends Omit<ParseOptions, "predeclared"> {
  /** Extra global names (host functions, namespaces, data). */
  predeclared?: Record<string, HostValue>;
  /** Limits of the run; each one not given takes its value in `DEFAULT_BUDGETS`. */
  budgets?: Budgets;
  /** Call `main()` (no arguments) after top-level execution when it is defined. @default true */
  callMain?: boolean;
  /** Fail with code "no_main" when `main` is not defined. @default false */
  requireMain?: boolean;
  /** Allow host calls while top-level code runs (false: only inside main). @default true */
  topLevelHostCalls?: boolean;
  /** Receives `print` output; discarded when absent. */
  print?: (line: string) => void;
  /** Clock for the timeout budget (ms). @default performance.now */
  now?: () => number;
  /**
   * Bytes the program holds on the heap right now. When given, `maxAllocBytes` bounds what the
   * program holds rather than what it ever built: passing the cumulative count asks this probe
   * and goes on while it reports at most the budget. Give it only where the JS heap is the
   * program's own (e.g. a worker running one program at a time). @default none (cumulative)
   */
  heapUsed?: () => number;
  /**
   * Host functions receive each float argument as a one-element `Float64Array` instead of a
   * number, so a host can tell `2.0` from `2` (structured clone keeps the tag). @default false
   */
  tagFloatArguments?: boolean;
}
