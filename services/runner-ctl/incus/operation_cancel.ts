/**
 * An Incus operation still running at `timeouts.incus_operation`: the controller asks Incus to
 * cancel it (`DELETE /1.0/operations/{id}`) and then waits up to a grace for it to end, holding
 * its concurrency slot all the while, so that no further operation starts beside it. Incus
 * refuses the cancel with 400 "This operation can't be cancelled" for an operation without a
 * cancel hook (`may_cancel` false: an instance create is one) and with 400 "Only running
 * operations can be cancelled" once it has ended; 404 means it ended more than 5 s ago. Either
 * way the wait that follows tells how it ended. Only an operation still running after the grace
 * is abandoned (one error record): its slot is freed while Incus may still be working on it.
 *
 * @module
 */
import type { Logger } from "@svc/shared/log";
import { type OperationOutcome, waitOperation } from "./operation_wait.ts";
import { resourcePath } from "./resource_path.ts";
import { IncusError, type IncusTransport } from "./transport.ts";

/** Options of {@linkcode settleTimedOut}. */
export interface SettleOptions {
  /** What the operation does, for the log ("create an instance"). */
  what: string;
  /** The timeout it ran into (for the log). */
  timeoutMs: number;
  /** How long to wait for it to end after the cancel request. */
  graceMs: number;
  logger: Logger;
  signal?: AbortSignal;
}

/**
 * Cancels operation `id` where Incus allows it and waits at most `graceMs` for it to end.
 * Resolves how it ended: "success" or "failure" (a cancelled one fails with "canceled"),
 * "unknown" when Incus no longer knows it (it ended), "timeout" when it was abandoned.
 */
export async function settleTimedOut(
  transport: IncusTransport,
  id: string,
  options: SettleOptions,
): Promise<OperationOutcome> {
  const fields = {
    operation: id,
    what: options.what,
    "timeout_ms": options.timeoutMs,
    "grace_ms": options.graceMs,
  };
  let cancel = "requested";
  try {
    await transport.call("cancel an operation", "DELETE", resourcePath("operations", id), {
      signal: options.signal,
    });
  } catch (err) {
    if (options.signal?.aborted) throw err;
    if (err instanceof IncusError && err.status === 404) {
      options.logger.info("Incus operation ended after its timeout", {
        ...fields,
        outcome: "gone",
      });
      return { kind: "unknown" };
    }
    cancel = `refused: ${err instanceof Error ? err.message : String(err)}`;
  }
  options.logger.warn("Incus operation timed out; waiting for it to end", { ...fields, cancel });
  const out = await waitOperation(transport, id, options.graceMs, options.signal);
  if (out.kind === "timeout") {
    options.logger.error(
      "Incus operation abandoned: still running after its grace; its concurrency slot is freed",
      fields,
    );
    return out;
  }
  const outcome = out.kind === "failure" && out.error === "canceled" ? "canceled" : out.kind;
  options.logger.info("Incus operation ended after its timeout", { ...fields, outcome });
  return out;
}
