/**
 * Typed per-request state, in the manner of Hono's `c.set`/`c.get`: a middleware or handler
 * declares a key once with {@linkcode createContextKey}, sets its value on a request with
 * {@linkcode setContext} and any later layer reads it back with {@linkcode getContext}, typed by
 * the key. The kit's own per-request state (route match, body read, deadline, request id) and the
 * services' (image-proxy's request note) all go through it instead of ad-hoc properties.
 *
 * All values of one request live in one array (keys and values in turn) held in a single
 * private slot of the request object. Not a `WeakMap<Request, …>`: weak maps keyed by short-lived requests cost the garbage
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

// The one slot the context occupies on a request; private to this module. It holds keys and
// values in turn (`[key, value, key, value, …]`): a request carries a handful of them (request
// id, route match, deadline, a service's one or two), which an array finds by identity as fast
// as a `Map` and with a fraction of a `Map`'s allocation, made for every request. It starts with
// room for three (unused places hold `FREE` as their key), so the kit's own three need no
// growing.
const SLOT = Symbol("requestContext");
const FREE: ContextKey<never> = Object.freeze({ name: "free" });
type WithContext = Request & { [SLOT]?: unknown[] };

/** Sets the value of `key` for `req`, replacing an earlier one. */
export function setContext<T>(req: Request, key: ContextKey<T>, value: T): void {
  const r = req as WithContext;
  const slot = r[SLOT];
  if (slot === undefined) {
    r[SLOT] = [key, value, FREE, undefined, FREE, undefined];
    return;
  }
  for (let i = 0; i < slot.length; i += 2) {
    const k = slot[i];
    if (k === key || k === FREE) { // keys fill the places in order: no `key` after a free one
      slot[i] = key;
      slot[i + 1] = value;
      return;
    }
  }
  slot.push(key, value);
}

/** The value of `key` for `req`, or `undefined` when none was set. */
export function getContext<T>(req: Request, key: ContextKey<T>): T | undefined {
  const slot = (req as WithContext)[SLOT];
  if (slot === undefined) return undefined;
  for (let i = 0; i < slot.length; i += 2) if (slot[i] === key) return slot[i + 1] as T;
  return undefined;
}

/** The value of `key` for `req`, set to `init()` first when there was none. */
export function ensureContext<T>(req: Request, key: ContextKey<T>, init: () => NoInfer<T>): T {
  const slot = (req as WithContext)[SLOT];
  if (slot !== undefined) {
    for (let i = 0; i < slot.length; i += 2) if (slot[i] === key) return slot[i + 1] as T;
  }
  const value = init();
  setContext(req, key, value);
  return value;
}
