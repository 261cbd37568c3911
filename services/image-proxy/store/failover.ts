/**
 * Read failover (docs/image-proxy.md#read-failover): a second store read when the primary fails
 * before an answer's headers (storage 5xx, 429, resets, refused connections, timeouts: the
 * `unavailable` and `timeout` codes, after the store's own attempts), never for a 404, a denial or
 * a misconfiguration. A circuit breaker skips a primary that failed `failures` requests in a row
 * until a probe of its catalog succeeds.
 *
 * A request is pinned to one store: the first storage answer picks it, and every later read of
 * the request goes there, so no answer mixes bytes (or metadata) of the two stores. When the
 * pinned primary fails eligibly between the metadata read and the body read of a conditional or
 * ranged request, the request moves to the secondary as a whole: the failure is reported as
 * `changed`, which makes the caller read the metadata again (now from the secondary).
 *
 * @module
 */
import type { Logger } from "@svc/shared/log";
import { StoreError } from "./errors.ts";
import type { GetOptions, ObjectMeta, ObjectRead, ObjectStore } from "./store.ts";

/** Which store answered. */
export type StoreName = "primary" | "secondary";

/** Whether a failure of the primary sends the request to the secondary. */
export function failsOver(err: unknown): boolean {
  return err instanceof StoreError && (err.code === "unavailable" || err.code === "timeout");
}

/** Options of {@linkcode createBreaker}. */
export interface BreakerOptions {
  /** Eligible failures in a row that open the breaker (≥ 1). */
  failures: number;
  /** While open, the primary is probed at most this often. */
  probeIntervalMs: number;
  /** Resolves when the primary is healthy again (a catalog read), rejects otherwise. */
  probe: () => Promise<void>;
  /** Monotonic clock in ms. @default {performance.now} */
  now?: () => number;
  logger?: Logger;
}

/** The primary's circuit breaker. */
export interface Breaker {
  /** Whether a request should try the primary; while open, starts a probe when one is due. */
  usePrimary(): boolean;
  /** The primary answered (any answer but an eligible failure). */
  success(): void;
  /** The primary failed eligibly. */
  failure(): void;
  readonly open: boolean;
  /** The probe in flight, if any (tests wait on it). */
  readonly probing: Promise<void> | undefined;
}

/**
 * Creates a breaker: closed, it counts eligible failures in a row and opens at `failures`; open,
 * it sends every request to the secondary and probes the primary every `probeIntervalMs`
 * (started by the first request after the interval, in the background), closing when a probe
 * succeeds.
 *
 * @example Usage
 * ```ts
 * import { createBreaker } from "./failover.ts";
 * const breaker = createBreaker({ failures: 1, probeIntervalMs: 1000, probe: async () => {} });
 * breaker.failure();
 * breaker.open; // true
 * ```
 */
export function createBreaker(options: BreakerOptions): Breaker {
  const now = options.now ?? (() => performance.now());
  let inRow = 0;
  let openedAt: number | undefined; // last open or probe start
  let probing: Promise<void> | undefined;
  const close = () => {
    if (openedAt !== undefined) options.logger?.info("primary store restored", {});
    openedAt = undefined;
    inRow = 0;
  };
  return {
    get open() {
      return openedAt !== undefined;
    },
    get probing() {
      return probing;
    },
    usePrimary() {
      if (openedAt === undefined) return true;
      if (!probing && now() - openedAt >= options.probeIntervalMs) {
        openedAt = now();
        probing = options.probe().then(close, () => {
          openedAt = now();
        }).finally(() => probing = undefined);
      }
      return false;
    },
    success() {
      if (openedAt === undefined) inRow = 0;
    },
    failure() {
      if (openedAt !== undefined) return;
      if (++inRow >= options.failures) {
        openedAt = now();
        options.logger?.warn("primary store skipped", { failures: inRow });
      }
    },
  };
}

/** A store for one request: it remembers which store answered. */
export interface PinnedStore extends ObjectStore {
  /** The store that answered the request's first storage read; unset before any. */
  readonly answered: StoreName | undefined;
}

/** A store that can pin a request to one of its backing stores. */
export interface FailoverStore extends ObjectStore {
  /** A store for one request (see the module). */
  forRequest(): PinnedStore;
}

/**
 * Composes the primary and the secondary behind the breaker.
 *
 * @example Usage
 * ```ts ignore
 * import { failoverStore } from "./failover.ts";
 * const store = failoverStore(primary, secondary, breaker);
 * const pinned = store.forRequest();
 * await pinned.get("mirror/streams/v1/index.json");
 * pinned.answered; // "primary" or "secondary"
 * ```
 */
export function failoverStore(
  primary: ObjectStore,
  secondary: ObjectStore,
  breaker: Breaker,
): FailoverStore {
  function forRequest(): PinnedStore {
    let pinned: StoreName | undefined;
    async function read<T>(op: (store: ObjectStore) => Promise<T>): Promise<T> {
      if (pinned === "secondary") return await op(secondary);
      if (pinned === undefined && !breaker.usePrimary()) {
        pinned = "secondary";
        return await op(secondary);
      }
      const first = pinned === undefined;
      try {
        const result = await op(primary);
        pinned = "primary";
        breaker.success();
        return result;
      } catch (err) {
        if (!failsOver(err)) {
          pinned = "primary";
          if (err instanceof StoreError && err.code !== "aborted") breaker.success();
          throw err;
        }
        breaker.failure();
        pinned = "secondary";
        if (first) return await op(secondary);
        // Metadata already came from the primary: read it again from the secondary.
        throw new StoreError("changed", "Cannot read object: the primary store failed", {
          cause: err,
        });
      }
    }
    return {
      get answered() {
        return pinned;
      },
      head: (key: string, options?: { signal?: AbortSignal }): Promise<ObjectMeta> =>
        read((s) => s.head(key, options)),
      get: (key: string, options?: GetOptions): Promise<ObjectRead> =>
        read((s) => s.get(key, options)),
    };
  }
  return {
    forRequest,
    head: (key, options) => forRequest().head(key, options),
    get: (key, options) => forRequest().get(key, options),
  };
}
