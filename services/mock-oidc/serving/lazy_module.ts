/**
 * Loads a module on first use, so parts a first request does not need (the control plane's
 * handlers, the console, the debugger and its JOSE library) stay out of the start-up module graph.
 * A failed load rejects the request that asked for it (the app's error boundary answers a 500
 * problem and logs it) and is tried again by the next one.
 *
 * Why by URL ({@linkcode lazyModuleAt}) and not `import("./x.ts")`: `deno run` builds the module
 * graph of a program before running it, and that graph takes in every dynamic import whose
 * specifier is a literal, with everything it imports (read, parsed and, for npm packages,
 * resolved: ≈ 10 ms of CPU per package, ≈ 30 ms for OpenTelemetry), although nothing runs it. A
 * specifier computed at run time (`import.meta.resolve`) keeps it out of the start; the type
 * stays checked through `typeof import("./x.ts")`. `deno compile` does not see such a module
 * either: each is in mock-oidc's `include` in deploy/services.ts (lazy_module_test.ts checks
 * that every one is). Under `deno run` such an import needs read access to the module, which
 * mock-oidc's grant (`--allow-read`, any path) gives.
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

/**
 * {@linkcode lazyModule} of the module at `url`, an `import.meta.resolve` result, typed `M`
 * (`typeof import("./x.ts")`): loaded on first use, and not part of the module graph at start.
 */
export function lazyModuleAt<M>(url: string): () => Promise<M> {
  return lazyModule(() => import(url) as Promise<M>);
}
