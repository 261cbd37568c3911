/**
 * Fault switches of the fake Actions service: injected 5xx/429 answers (with `Retry-After`),
 * BOM-prefixed bodies, stale sessions (409), empty queue URLs, the "no wake" long poll
 * (actions/scaleset#122), and the marker that the scale set was deleted.
 *
 * @module
 */
import { exception } from "./errors.ts";

/** The switches; tests flip them directly. */
export interface Faults {
  /** Prefix every Actions-service JSON body with a UTF-8 BOM. */
  bom: boolean;
  /** Lifecycle messages do not wake an in-flight poll (delivered at the next poll). */
  noWake: boolean;
  /** Session creations answered 409 before one succeeds. */
  staleSessionAttempts: number;
  /** Sessions created with an empty messageQueueUrl. */
  emptyQueueUrl: number;
  /** Set when the scale set was deleted. */
  setDeleted: boolean;
  /** Fails the next `count` requests whose path matches with `status` (5xx or 429). */
  failNext(count: number, status: number, path?: RegExp, retryAfterS?: number): void;
  /** The injected response for this request, if one is due. */
  take(path: string): Response | undefined;
  /** Injected failures not yet delivered. */
  pending(): number;
}

/** Fresh switches, all off. */
export function newFaults(): Faults {
  const queue: { count: number; status: number; path?: RegExp; retryAfterS?: number }[] = [];
  return {
    bom: false,
    noWake: false,
    staleSessionAttempts: 0,
    emptyQueueUrl: 0,
    setDeleted: false,
    failNext(count, status, path, retryAfterS) {
      queue.push({ count, status, path, retryAfterS });
    },
    pending: () => queue.reduce((n, q) => n + q.count, 0),
    take(path) {
      const f = queue.find((q) => q.count > 0 && (!q.path || q.path.test(path)));
      if (!f) return undefined;
      f.count--;
      const res = exception(f.status, "ServiceUnavailableException", "injected fault", this.bom);
      if (f.retryAfterS !== undefined) res.headers.set("Retry-After", String(f.retryAfterS));
      return res;
    },
  };
}
