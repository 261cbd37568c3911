/**
 * Who is calling: the API key from `X-API-Key` or `Authorization: Bearer`, matched by SHA-256
 * digest. Missing, malformed, conflicting, unknown or revoked keys all get the same 401 (with
 * `WWW-Authenticate: Bearer`) so a caller learns nothing about which keys exist.
 *
 * Lookups are cached for `cacheTtlMs` (default 5 s; 0 disables) to keep one database round trip
 * per request. A key changed through this process's API drops the cache at once (the shared
 * {@linkcode KeyChanges} generation); one revoked elsewhere stops working within the TTL. An
 * expired key is refused from the moment its `expiresAt` passes by the injected clock, cached or
 * not. Known keys (by the key itself: no digest to compute on a hit) and unknown digests live in
 * two separate least-recently-used caches of `cacheSize` entries each, so a flood of random keys
 * only evicts other unknown digests and never the keys real callers use.
 * @module
 */
import { HttpError } from "@svc/shared/problem";
import { keyDigest, type Principal } from "./api_keys.ts";
import type { KeyChanges } from "./key_changes.ts";

/** Options of {@linkcode createAuthenticator}. */
export interface AuthenticatorOptions {
  /** Looks an active key up by digest. */
  findByDigest(digest: string): Promise<Principal | undefined>;
  /** @default 5000 */
  cacheTtlMs?: number;
  /** Entries kept in each of the known-key and unknown-digest caches. @default 10000 */
  cacheSize?: number;
  /** The clock expiry is judged by (epoch ms). @default Date.now */
  now?: () => number;
  /** The process-wide key-change generation; when it moves, the cache is dropped. */
  changes?: KeyChanges;
}

function unauthorized(detail: string): HttpError {
  return new HttpError(401, "unauthorized", detail, {
    headers: { "www-authenticate": 'Bearer realm="todo-api"' },
  });
}

/**
 * The presented key, or undefined when none; throws 401 on malformed or conflicting headers.
 * One rule for both headers: a header that is empty (or only whitespace) counts as absent, so an
 * empty `X-API-Key:` beside a valid `Authorization: Bearer`, and an empty `Authorization:`
 * beside a valid `X-API-Key`, both authenticate with the valid one.
 */
export function presentedKey(req: Request): string | undefined {
  const apiKey = req.headers.get("x-api-key")?.trim() || undefined;
  const authorization = req.headers.get("authorization")?.trim() || undefined;
  let bearer: string | undefined;
  if (authorization !== undefined) {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
    if (!match) throw unauthorized("Authorization header must be: Bearer <API key>");
    bearer = match[1];
  }
  if (apiKey !== undefined && bearer !== undefined && apiKey !== bearer) {
    throw unauthorized("X-API-Key and Authorization carry different keys");
  }
  return apiKey ?? bearer;
}

/**
 * Returns `authenticate(req)`, resolving to the principal or throwing 401, and on it
 * `authenticate.resolve(req)`: the same check, which answers a key already in the cache (every
 * request but a key's first within the TTL) synchronously, and throws its 401 synchronously:
 * the request path then makes no promise for it.
 */
export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  const ttl = options.cacheTtlMs ?? 5000;
  const size = options.cacheSize ?? 10_000;
  const now = options.now ?? Date.now;
  const changes = options.changes;
  let known = createLruCache<Principal>(size);
  let unknown = createLruCache<true>(size);
  let generation = changes?.current() ?? 0;

  function resolve(req: Request): Principal | Promise<Principal> {
    const key = presentedKey(req);
    if (key === undefined) throw unauthorized("missing API key");
    if (changes && changes.current() !== generation) {
      generation = changes.current();
      known = createLruCache<Principal>(size);
      unknown = createLruCache<true>(size);
    }
    const at = now();
    // Known keys are cached by the key itself, so a caller's repeated key costs no SHA-256 (the
    // largest single cost of a request once its lookup is cached). Only keys that exist get in,
    // so the cache holds no more than the key table does; unknown ones are cached by digest.
    const principal = known.get(key, at);
    if (principal !== undefined) return admitted(principal);
    const digest = keyDigest(key);
    if (unknown.get(digest, at) !== undefined) return admitted(undefined);
    return lookUp(key, digest, at);
  }

  async function lookUp(key: string, digest: string, at: number): Promise<Principal> {
    const seen = generation;
    const principal = await options.findByDigest(digest);
    // A lookup that raced a key change may have read the old row: not cached.
    if (ttl > 0 && seen === (changes?.current() ?? 0)) {
      if (principal) known.set(key, principal, at + ttl);
      else unknown.set(digest, true, at + ttl);
    }
    return admitted(principal);
  }

  function admitted(principal: Principal | undefined): Principal {
    // Revoked and expired keys get the same answer as unknown ones: nothing about which exist.
    if (!principal) throw unauthorized("unknown API key");
    if (principal.expiresAtMs !== undefined && principal.expiresAtMs <= now()) {
      throw unauthorized("unknown API key");
    }
    return principal;
  }

  return Object.assign(async (req: Request): Promise<Principal> => await resolve(req), {
    resolve,
  });
}

/** What {@linkcode createAuthenticator} returns. */
export interface Authenticator {
  /** The caller of `req`, or a 401 `HttpError` (rejected). */
  (req: Request): Promise<Principal>;
  /** The same, synchronous (returned or thrown) when the key's verdict is cached. */
  resolve(req: Request): Principal | Promise<Principal>;
}

function createLruCache<V>(size: number) {
  const entries = new Map<string, { value: V; until: number }>();
  let newest: string | undefined;
  return {
    get(key: string, at: number): V | undefined {
      const hit = entries.get(key);
      if (!hit) return undefined;
      if (hit.until <= at) {
        entries.delete(key);
        return undefined;
      }
      // The most recently used moves to the end; the one already there (a busy key) stays put,
      // saving a delete and an insert per request.
      if (key !== newest) {
        entries.delete(key);
        entries.set(key, hit);
        newest = key;
      }
      return hit.value;
    },
    set(key: string, value: V, until: number): void {
      entries.delete(key);
      if (entries.size >= size) entries.delete(entries.keys().next().value!);
      entries.set(key, { value, until });
      newest = key;
    },
  };
}
