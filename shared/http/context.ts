/**
 * Typed per-request state, in the manner of Hono's `c.set`/`c.get`: a middleware or handler
 * declares a key once with {@linkcode createContextKey}, sets its value on a request with
 * {@linkcode setContext} and any later layer reads it back with {@linkcode getContext}, typed by
 * the key. The kit's own per-request state (route match, body read, deadline, request id) and the
 * services' (image-proxy's request note) all go through it instead of ad-hoc properties.
 *
 * All values of one request live in one `Map` held in a single private slot of the request
 * object. Not a `WeakMap<Request, …>`: weak maps keyed by short-lived requests cost the garbage
 * collector more than everything else the stack does per request (tests/bench/http_stack).
 *
 * @module
 */

/** A typed key of per-request state; `T` is the type of its value. */
export interface ContextKey<T> {
  /** Name for debugging; two keys with the same name are still distinct. */
  readonly name: string;
  /** Carries `T` for the type checker only; never set. */
  readonly __type?: T;
}

/**
 * Declares a key of per-request state. Keys are compared by identity: a module keeps its key
 * private to keep its state private, or exports it to share it.
 *
 * @example Usage
 * ```ts
 * import { createContextKey, getContext, setContext } from "@svc/shared/http";
 * import assert from "node:assert/strict";
 * const USER = createContextKey<{ sub: string }>("user");
 * const req = new Request("http://x/");
 * setContext(req, USER, { sub: "alice" });
 * assert.equal(getContext(req, USER)?.sub, "alice");
 * ```
 */
export function createContextKey<T>(name: string): ContextKey<T> {
  return Object.freeze({ name });
}

// The one slot the context occupies on a request; private to this module.
const SLOT = Symbol("requestContext");
type WithContext = Request & { [SLOT]?: Map<ContextKey<unknown>, unknown> };

/** Sets the value of `key` for `req`, replacing an earlier one. */
export function setContext<T>(req: Request, key: ContextKey<T>, value: T): void {
  const r = req as WithContext;
  (r[SLOT] ??= new Map()).set(key, value);
}

/** The value of `key` for `req`, or `undefined` when none was set. */
export function getContext<T>(req: Request, key: ContextKey<T>): T | undefined {
  return (req as WithContext)[SLOT]?.get(key) as T | undefined;
}

/** The value of `key` for `req`, set to `init()` first when there was none. */
export function ensureContext<T>(req: Request, key: ContextKey<T>, init: () => NoInfer<T>): T {
  const r = req as WithContext;
  const map = r[SLOT] ??= new Map();
  if (map.has(key)) return map.get(key) as T;
  const value = init();
  map.set(key, value);
  return value;
}
