/**
 * Loads a module on first use, so parts a first request does not need (a service's optional
 * subsystems, handlers of routes few requests take, their npm libraries) stay out of the start-up
 * module graph. A failed load rejects the call that asked for it (a request handler's error
 * boundary answers a 500 problem and logs it) and is tried again by the next one.
 *
 * Why by URL ({@linkcode lazyModuleAt}) and not `import("./x.ts")`: `deno run` builds the module
 * graph of a program before running it, and that graph takes in every dynamic import whose
 * specifier is a literal, with everything it imports (read, parsed and, for npm packages,
 * resolved: ≈ 10 ms of CPU per package, ≈ 30 ms for OpenTelemetry), although nothing runs it. A
 * specifier computed at run time (`import.meta.resolve` of a literal) keeps it out of the start;
 * the type stays checked through `typeof import("./x.ts")`.
 *
 * What a service that uses it owes: `deno compile` does not see such a module either, so each one
 * goes into the service's `include` in deploy/services.ts (deploy/by_url_include_test.ts walks
 * each service's sources for `import.meta.resolve` and checks the list is complete); an npm
 * package loaded this way goes through a module of the service that imports it by name, so that
 * the package is embedded with that module. Under `deno run` such an import needs read access to the module.
 *
 * @example Usage
 * ```ts ignore
 * import { lazyModuleAt } from "@svc/shared/lazy-module";
 *
 * // the argument is `import.meta.resolve` of "./routes.ts", which is in the service's `include`
 * const routes = lazyModuleAt<typeof import("./routes.ts")>(routesUrl);
 * const handler = async (req: Request) => (await routes()).handle(req);
 * ```
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
