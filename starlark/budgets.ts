/** Default budgets, applied to every budget a caller leaves out. */
import type { Budgets } from "./api_types.ts";

const MiB = 1024 * 1024;

/**
 * The budgets `run()` and the CLI apply when none are given: an infinite loop, a runaway
 * allocation or a huge result all end with a limit error. Pass `Infinity` to turn one off.
 *
 * @example
 * ```ts
 * import { DEFAULT_BUDGETS, run } from "@svc/starlark";
 * await run(src, { budgets: { ...DEFAULT_BUDGETS, timeoutMs: 1000 } });
 * ```
 */
export const DEFAULT_BUDGETS: Readonly<Required<Budgets>> = Object.freeze({
  maxSteps: 100_000_000,
  timeoutMs: 10_000,
  maxHostCalls: 10_000,
  maxDepth: 100,
  maxBytes: 16 * MiB,
  maxAllocBytes: 256 * MiB,
});

/** Every budget filled in: the caller's value, else the default. */
export function withDefaults(b: Budgets = {}): Required<Budgets> {
  const out = { ...DEFAULT_BUDGETS };
  for (const k of Object.keys(DEFAULT_BUDGETS) as (keyof Budgets)[]) {
    const v = b[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}
