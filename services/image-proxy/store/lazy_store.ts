/**
 * A store made on its first use. The S3 store holds the AWS SDK (its client, credential chain and
 * XML parser: most of the proxy's module loading), which no request before the first storage
 * request needs: `/healthz` answers without it, and the readiness probe, which starts after the
 * first answer (`serve.ts`), loads it unless an object request already has.
 *
 * @module
 */
import type { GetOptions, ObjectMeta, ObjectRead, ObjectStore } from "./store.ts";

/** A store that can be released (closing its connections). */
export interface DisposableStore extends ObjectStore {
  destroy(): void;
}

/** A store made on first use, or made ahead by `load`. */
export interface LazyStore extends DisposableStore {
  /** Makes the store now (once); rejects as `make` did (the next call tries again). */
  load(): Promise<void>;
}

/**
 * Wraps `make`, called once by the first `head` or `get` (concurrent first calls share it); a
 * failed `make` is tried again by the next call. `destroy` releases the store if it was made.
 *
 * @example Usage
 * ```ts ignore
 * const store = lazyStore(async () => (await import("./s3_store.ts")).createS3Store(options));
 * ```
 */
export function lazyStore(make: () => Promise<DisposableStore>): LazyStore {
  let made: Promise<DisposableStore> | undefined;
  let store: DisposableStore | undefined;
  let destroyed = false;
  const ready = (): Promise<DisposableStore> =>
    made ??= make().then((s) => {
      store = s;
      if (destroyed) s.destroy();
      return s;
    }, (err) => {
      made = undefined;
      throw err;
    });
  return {
    load: async () => void await ready(),
    head: async (key: string, options?: { signal?: AbortSignal }): Promise<ObjectMeta> =>
      (await ready()).head(key, options),
    get: async (key: string, options?: GetOptions): Promise<ObjectRead> =>
      (await ready()).get(key, options),
    destroy: () => {
      destroyed = true;
      store?.destroy();
    },
  };
}
