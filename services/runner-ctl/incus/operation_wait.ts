/**
 * Waiting on an Incus operation. `/wait` answers HTTP 200 at once and sends the result later, in
 * one of two shapes: Incus 6.0 LTS sends an error envelope on failure *or* timeout; 7.x sends the
 * Operation with status_code 400 (failure) or still 103 (timeout). Both are accepted. After a
 * wait error the operation itself is read (authoritative while retained); operations vanish 5 s
 * after completion, so a 404 resolves "unknown" and the caller reads the instance instead.
 *
 * @module
 */
import { resourcePath } from "./resource_path.ts";
import { IncusError, type IncusTransport, type Operation } from "./transport.ts";

/** Outcome of an operation. */
export type OperationOutcome =
  | { kind: "success"; operation: Operation }
  | { kind: "failure"; error: string }
  | { kind: "timeout" }
  | { kind: "unknown" };

/** Waits for `operationId` at most `timeoutMs` (whole seconds on the wire, at least 1). */
export async function waitOperation(
  t: IncusTransport,
  operationId: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<OperationOutcome> {
  const seconds = Math.max(1, Math.ceil(timeoutMs / 1000));
  const guard = AbortSignal.timeout(timeoutMs + 10_000);
  const sig = signal ? AbortSignal.any([signal, guard]) : guard;
  const path = resourcePath("operations", operationId);
  const wait = resourcePath("operations", operationId, "wait");
  let res: Response;
  try {
    res = await t.raw("GET", t.url(wait, { timeout: String(seconds) }, false), {
      signal: sig,
    });
  } catch (err) {
    if (signal?.aborted) throw err;
    if (guard.aborted) return { kind: "timeout" };
    throw err;
  }
  if (res.status === 404) {
    await res.body?.cancel();
    return { kind: "unknown" };
  }
  let waited: Operation | undefined;
  let waitError: string | undefined;
  try {
    const env = await t.envelope("wait for an operation", res);
    waited = env.metadata as Operation;
  } catch (err) {
    if (!(err instanceof IncusError)) throw err;
    waitError = err.message;
  }
  if (waited && waited.status_code === 200) return { kind: "success", operation: waited };
  if (waited && waited.status_code === 400) return { kind: "failure", error: waited.err };
  if (waited && waited.status_code === 401) return { kind: "failure", error: "canceled" };
  if (waited) return { kind: "timeout" };
  // 6.0 flavour: an error envelope; the operation says whether it failed or is still running.
  try {
    const env = await t.call("read an operation", "GET", path, { signal });
    const op = env.metadata as Operation;
    if (op.status_code === 200) return { kind: "success", operation: op };
    if (op.status_code === 400 || op.status_code === 401) {
      return { kind: "failure", error: op.err || waitError || "failed" };
    }
    return { kind: "timeout" };
  } catch (err) {
    if (err instanceof IncusError && err.status === 404) return { kind: "unknown" };
    throw err;
  }
}
