/**
 * What telemetry exporters share: a bounded wait for a final flush, and a failure described in a
 * word that is safe to log (never the message, which may carry the collector URL or headers).
 *
 * @module
 */

/**
 * Waits for `work` at most `ms`; resolves either way (the work is left to finish or not).
 *
 * @example Usage
 * ```ts
 * import { boundedWait } from "./export_bounds.ts";
 * await boundedWait(new Promise(() => {}), 10); // resolves after 10 ms
 * ```
 */
export async function boundedWait(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<void>((resolve) => timer = setTimeout(resolve, ms));
  await Promise.race([work.then(() => {}, () => {}), limit]);
  clearTimeout(timer);
}

/**
 * A short, loggable kind of an export failure: `http_<status>`, `timeout`, a lowercased system
 * error code such as `econnrefused`, or the error's name.
 *
 * @example Usage
 * ```ts
 * import { failureKind } from "./export_bounds.ts";
 * import assert from "node:assert/strict";
 * assert.equal(failureKind(Object.assign(new Error("x"), { code: 503 })), "http_503");
 * assert.equal(failureKind(Object.assign(new Error("x"), { code: "ECONNREFUSED" })), "econnrefused");
 * ```
 */
export function failureKind(error: unknown): string {
  const e = error as { name?: unknown; code?: unknown; message?: unknown } | undefined;
  if (typeof e?.code === "number") return `http_${e.code}`;
  if (typeof e?.name === "string" && /timeout/i.test(e.name)) return "timeout";
  if (typeof e?.message === "string" && /timeout|timed out/i.test(e.message)) return "timeout";
  if (typeof e?.code === "string" && /^[A-Z0-9_]{2,40}$/.test(e.code)) return e.code.toLowerCase();
  if (typeof e?.name === "string" && /^\w{1,40}$/.test(e.name)) return e.name;
  return "unknown";
}
