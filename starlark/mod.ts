/**
 * Starlark interpreter (starlark-go dialect, see README.md): parse, resolve and run programs
 * with host functions and hard budgets.
 *
 * @example
 * ```ts
 * import { run } from "@svc/starlark";
 * const r = await run("def main():\n  return lookup(key='a')\n", {
 *   predeclared: { lookup: async (_args, kw) => ({ key: kw.key }) },
 *   budgets: { maxSteps: 100_000, timeoutMs: 1000 },
 * });
 * ```
 */
export type {
  Budgets,
  ErrorCode,
  ErrorKind,
  HostFunction,
  HostNamespace,
  HostValue,
  Json,
  JsonData,
  ParseOptions,
  RunErrorInfo,
  RunOptions,
  RunResult,
} from "./api_types.ts";
export { DEFAULT_BUDGETS } from "./budgets.ts";
export { EvalError, type Frame, LimitError, StarlarkError } from "./errors.ts";
export { parse, type Program } from "./program.ts";
export { run } from "./run.ts";
export { predeclaredPaths } from "./names.ts";
export { KEYWORDS, RESERVED } from "./keywords.ts";
