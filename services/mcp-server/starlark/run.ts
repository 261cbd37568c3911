/** `run`: execute a program with predeclared host values and budgets. */
import type { RunOptions, RunResult } from "./api_types.ts";
import type { Program } from "./program.ts";

export function run(
  _program: Program | string,
  _options: RunOptions = {},
): Promise<RunResult> {
  return Promise.reject(new Error("Cannot run: evaluator not implemented yet"));
}
