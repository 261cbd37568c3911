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
 * Route rows declare such a handler where they name it, with {@linkcode onFirstUse}: the row says
 * which module and which of its exports answers, and nothing else repeats it.
 *
 * What `deno compile` needs: it does not see such a module either, so each must be embedded with
 * `--include`. The compile task derives that list from the declarations themselves: every
 * {@linkcode lazyModuleAt} records its URL ({@linkcode declaredLazyModules}), and the task imports
 * the service's entry (whose modules declare theirs as they load), then each declared module in
 * turn, and embeds every URL declared (deploy/lazy_modules.ts; deploy/by_url_include_test.ts
 * checks that nothing by URL is missed). So declare them at module level, where importing the
 * module declares them. An npm package loaded this way goes through a module of the service that
 * imports it by name, so that the package is embedded with that module. Under `deno run` such an
 * import needs read access to the module.
 *
 * @example Usage
 * ```ts ignore
 * import { lazyModuleAt, onFirstUse } from "@svc/shared/lazy-module";
 *
 * // a module-level declaration: `deno run` does not read ./token.ts until the first token request
 * const token = lazyModuleAt<typeof import("./token.ts")>(import.meta.resolve("./token.ts"));
 * const routes = [{ method: "POST", pattern: "/token", handler: onFirstUse(token, "handleToken") }];
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

/** A loader of the module at {@linkcode LazyModule.url}: imports it on its first call, once. */
export interface LazyModule<M> {
  /** The module, imported on the first call. */
  (): Promise<M>;
  /** The module's URL, as `import.meta.resolve` gave it. */
  readonly url: string;
}

// Append-only: what the modules loaded so far declared. The one state this module keeps, read by
// the compile task (deploy/lazy_modules.ts) to embed what `deno compile` cannot see.
const DECLARED = new Set<string>();

/**
 * {@linkcode lazyModule} of the module at `url`, an `import.meta.resolve` result, typed `M`
 * (`typeof import("./x.ts")`): loaded on first use, and not part of the module graph at start.
 * The URL is recorded for the compile task ({@linkcode declaredLazyModules}).
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { lazyModuleAt } from "@svc/shared/lazy-module";
 *
 * const url = import.meta.resolve("@svc/shared/duration");
 * const duration = lazyModuleAt<typeof import("@svc/shared/duration")>(url);
 * assert.equal(duration.url, url);
 * assert.equal(typeof (await duration()).parseDuration, "function");
 * ```
 */
export function lazyModuleAt<M>(url: string): LazyModule<M> {
  DECLARED.add(url);
  return Object.assign(lazyModule(() => import(url) as Promise<M>), { url });
}

/** The names of the functions a module exports (what {@linkcode onFirstUse} can name). */
export type FunctionName<M> = {
  [K in keyof M]: M[K] extends (...args: never[]) => unknown ? K : never;
}[keyof M];

/**
 * A handler (or any function) whose module loads on its first call: `pick` names the function in
 * the module (its export name, or a function of the module), which is then called with the
 * arguments. The way a route row declares a lazily loaded handler. A failed load rejects that call
 * (the error boundary answers a 500 problem) and is tried again on the next.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { lazyModuleAt, onFirstUse } from "@svc/shared/lazy-module";
 *
 * const duration = lazyModuleAt<typeof import("@svc/shared/duration")>(
 *   import.meta.resolve("@svc/shared/duration"),
 * );
 * const parse = onFirstUse(duration, "parseDuration"); // nothing loaded yet
 * assert.equal(await parse("1s"), 1000);
 * const twice = onFirstUse(duration, (m) => (text: string) => 2 * m.parseDuration(text));
 * assert.equal(await twice("1s"), 2000);
 * ```
 */
export function onFirstUse<M, K extends FunctionName<M>>(
  load: () => Promise<M>,
  pick: K,
): M[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
/** {@inheritDoc onFirstUse} */
export function onFirstUse<M, A extends unknown[], R>(
  load: () => Promise<M>,
  pick: (module: M) => (...args: A) => R,
): (...args: A) => Promise<Awaited<R>>;
export function onFirstUse<M>(
  load: () => Promise<M>,
  pick: keyof M | ((module: M) => (...args: unknown[]) => unknown),
): (...args: unknown[]) => Promise<unknown> {
  return async function loadedOnFirstUse(...args: unknown[]): Promise<unknown> {
    const module = await load();
    const picked = typeof pick === "function"
      ? pick(module)
      : module[pick] as (...args: unknown[]) => unknown;
    return await picked(...args);
  };
}

/**
 * The URL of every module declared with {@linkcode lazyModuleAt} in this process so far, in the
 * order of declaration: after importing a service's modules, what its binary must embed.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { declaredLazyModules, lazyModuleAt } from "@svc/shared/lazy-module";
 *
 * const url = import.meta.resolve("@svc/shared/base64");
 * lazyModuleAt(url);
 * assert.ok(declaredLazyModules().includes(url));
 * ```
 */
export function declaredLazyModules(): string[] {
  return [...DECLARED];
}
