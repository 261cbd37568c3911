/**
 * Loads a module on first use, so parts a first request does not need (the control plane's
 * handlers, the console, the debugger and its JOSE library) stay out of the start-up module graph.
 * A failed load rejects the request that asked for it (the app's error boundary answers a 500
 * problem and logs it) and is tried again by the next one.
 *
 * @module
 */

/** A loader that imports `load()` once and hands every caller the same module. */
export function lazyModule<M>(load: () => Promise<M>): () => Promise<M> {
  let pending: Promise<M> | undefined;
  return function loadOnce() {
    pending ??= load().catch((err) => {
      pending = undefined;
      throw err;
    });
    return pending;
  };
}
