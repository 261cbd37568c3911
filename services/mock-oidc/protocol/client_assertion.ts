/**
 * Signed client authentication (RFC 7523 §2.2, §3) of a client the provider holds to its
 * metadata: a `private_key_jwt` assertion verified against the client's registered `jwks`, or
 * the JWK Set at its `jwks_uri` (fetched through {@linkcode fetchOutbound} with the bounds of
 * client ID metadata documents, and cached), and a `client_secret_jwt` assertion against its
 * secret. Then `exp` (required), `nbf` and `iat` against the process clock within
 * {@linkcode ASSERTION_SKEW_S}, a `jti` (required) never seen before for that client. The shape
 * rules every assertion meets (`iss` = `sub` = client id, `aud`) are `client_auth.ts`'s.
 *
 * Loaded only when a token request carries a `client_assertion` of a held client (`token.ts`).
 *
 * @module
 */

import { compactVerify, importJWK } from "jose";
import { base64url } from "../tokens/jwt.ts";
import type { ClientAuth } from "./client_auth.ts";
import { ASSERTION_KEY_ALGORITHMS, ASSERTION_SECRET_ALGORITHMS } from "./client_metadata.ts";
import type { HeldClient } from "./client_registry.ts";
import type { IssuerContext } from "./deps.ts";
import { freshnessSeconds, MAX_DOCUMENT_BYTES } from "./metadata_document.ts";
import { invalidClient } from "./oauth_error.ts";
import { fetchOutbound, OutboundRefused } from "../outbound/fetch_outbound.ts";

/** Clock skew allowed on `exp`, `nbf` and `iat`, seconds. */
export const ASSERTION_SKEW_S = 30;

/** How long a fetched JWK Set is reused when its response says nothing about caching, seconds. */
export const JWKS_DEFAULT_CACHE_S = 300;

/** Verify the assertion of `auth` for `client`; throws `invalid_client` (401) on any failure. */
export async function verifyClientAssertion(
  ctx: IssuerContext,
  client: HeldClient,
  auth: ClientAuth,
): Promise<void> {
  const jwt = auth.assertion!;
  const alg = jwt.header.alg;
  const method = client.metadata.token_endpoint_auth_method;
  const allowed: readonly string[] = method === "client_secret_jwt"
    ? ASSERTION_SECRET_ALGORITHMS
    : ASSERTION_KEY_ALGORITHMS;
  if (typeof alg !== "string" || !allowed.includes(alg)) {
    throw invalidClient(`client_assertion alg must be one of ${allowed.join(", ")}`);
  }
  const registeredAlg = client.metadata.token_endpoint_auth_signing_alg;
  if (registeredAlg !== undefined && alg !== registeredAlg) {
    throw invalidClient(
      `client_assertion alg ${alg} is not the registered token_endpoint_auth_signing_alg ` +
        registeredAlg,
    );
  }
  const compact = `${jwt.signingInput}.${base64url(jwt.signature)}`;
  const verified = method === "client_secret_jwt"
    ? await verifyWith(compact, new TextEncoder().encode(client.clientSecret ?? ""))
    : await verifyWithKeys(ctx, client, compact, jwt.header);
  if (!verified) throw invalidClient("client_assertion signature does not verify");
  checkTimes(ctx, jwt.claims);
  rememberJti(ctx, client.clientId, jwt.claims);
}

function checkTimes(ctx: IssuerContext, claims: Record<string, unknown>): void {
  const now = ctx.deps.clock.now() / 1000;
  const exp = claims.exp as number; // client_auth.ts made sure it is a number
  if (now >= exp + ASSERTION_SKEW_S) throw invalidClient("client_assertion has expired");
  if (typeof claims.nbf === "number" && claims.nbf > now + ASSERTION_SKEW_S) {
    throw invalidClient("client_assertion is not yet valid (nbf)");
  }
  if (typeof claims.iat === "number" && claims.iat > now + ASSERTION_SKEW_S) {
    throw invalidClient("client_assertion iat is in the future");
  }
}

/** RFC 7523 §3 item 7: a `jti` is used once, remembered until the assertion expires. */
function rememberJti(ctx: IssuerContext, clientId: string, claims: Record<string, unknown>): void {
  if (typeof claims.jti !== "string" || claims.jti === "") {
    throw invalidClient("client_assertion has no jti");
  }
  const seen = ctx.deps.state.assertionJtis;
  const key = JSON.stringify([ctx.issuerId, clientId, claims.jti]);
  const now = ctx.deps.clock.now();
  const until = seen.get(key);
  if (until !== undefined && until > now) {
    throw invalidClient("client_assertion jti has been used before");
  }
  seen.delete(key);
  seen.set(key, ((claims.exp as number) + ASSERTION_SKEW_S) * 1000);
}

async function verifyWith(compact: string, key: CryptoKey | Uint8Array): Promise<boolean> {
  try {
    await compactVerify(compact, key);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `compact` verifies with one of the client's keys (its `jwks`, or the JWK Set at its
 * `jwks_uri`) that fits the header (`kid`, `alg`, `use`); also request objects'
 * (`request_object.ts`). Throws `invalid_client` when the client has no keys or its `jwks_uri`
 * cannot be used.
 */
export async function verifyWithKeys(
  ctx: IssuerContext,
  client: HeldClient,
  compact: string,
  header: Record<string, unknown>,
): Promise<boolean> {
  const registered = client.metadata.jwks as { keys: unknown[] } | undefined;
  const uri = client.metadata.jwks_uri as string | undefined;
  if (!registered && uri === undefined) {
    throw invalidClient(`client ${client.clientId} registered neither jwks nor jwks_uri`);
  }
  let keys = registered ? registered.keys : (await clientJwks(ctx, uri!, false)).keys;
  let candidates = matching(keys, header);
  // A kid the cached set lacks: the client may have rotated its keys; fetch once more.
  if (!registered && candidates.length === 0 && typeof header.kid === "string") {
    keys = (await clientJwks(ctx, uri!, true)).keys;
    candidates = matching(keys, header);
  }
  for (const jwk of candidates) {
    let key: CryptoKey | Uint8Array;
    try {
      key = await importJWK(jwk as Parameters<typeof importJWK>[0], header.alg as string);
    } catch {
      continue;
    }
    if (await verifyWith(compact, key)) return true;
  }
  return false;
}

/** Public signing keys fitting the header; private (`d`) and secret (`k`) members never verify. */
function matching(keys: unknown[], header: Record<string, unknown>): Record<string, unknown>[] {
  return keys.filter((k): k is Record<string, unknown> =>
    typeof k === "object" && k !== null &&
    !("d" in k) && !("k" in k) &&
    (header.kid === undefined || (k as { kid?: unknown }).kid === header.kid) &&
    ((k as { alg?: unknown }).alg === undefined || (k as { alg?: unknown }).alg === header.alg) &&
    ((k as { use?: unknown }).use === undefined || (k as { use?: unknown }).use === "sig")
  );
}

/** The JWK Set at `uri`: from the cache while fresh (unless `refresh`), else fetched. */
async function clientJwks(
  ctx: IssuerContext,
  uri: string,
  refresh: boolean,
): Promise<{ keys: Record<string, unknown>[] }> {
  const cache = ctx.deps.state.clientJwks;
  const now = ctx.deps.clock.now();
  const cached = cache.get(uri);
  if (cached && !refresh && cached.expiresAtMs > now) return cached;
  cache.delete(uri);
  const refused = (reason: string) => invalidClient(`Cannot use jwks_uri ${uri}: ${reason}`);
  let fetched;
  try {
    fetched = await fetchOutbound(uri, {
      ...ctx.deps.metadataDocuments?.outbound,
      maxBytes: MAX_DOCUMENT_BYTES,
      accept: "application/jwk-set+json, application/json",
      what: "the JWK Set",
    });
  } catch (err) {
    if (err instanceof OutboundRefused) throw refused(err.message);
    throw err;
  }
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(fetched.bytes));
  } catch {
    throw refused("the JWK Set is not JSON");
  }
  const keys = (body as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw refused("the JWK Set has no keys array");
  // Headers that say nothing about caching: JWKS_DEFAULT_CACHE_S; no-store and the like: none.
  const said = fetched.headers.has("cache-control") || fetched.headers.has("expires");
  const freshFor = said ? freshnessSeconds(fetched.headers, now) : JWKS_DEFAULT_CACHE_S;
  const entry = { keys: keys as Record<string, unknown>[], expiresAtMs: now + freshFor * 1000 };
  if (freshFor > 0) cache.set(uri, entry);
  return entry;
}
