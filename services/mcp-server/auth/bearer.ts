/**
 * OAuth bearer tokens of the Streamable HTTP transport: JWTs verified against the OIDC issuer's
 * JWKS (found through its discovery document), whose `aud` names this server: its canonical
 * resource URI (RFC 8707 / RFC 9728, given per call since it can follow the request's origin) or
 * one of the configured extra audiences (opt-in, for tokens minted without a resource). Only
 * access tokens: an ID token, or any JWT typed as something else, is refused whatever its `aud`
 * ({@linkcode notAccessToken}). The verified `sub` becomes the subject the invocation resolver
 * hands to the tools.
 *
 * @example
 * ```ts ignore
 * const verifier = createBearerVerifier({ issuer: "http://127.0.0.1:8080/demo" });
 * const authInfo = await verifier.verify(token, { resource: "http://127.0.0.1:8090/mcp" });
 * ```
 * @module
 */
import type { JWTVerifyGetKey } from "jose";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { lazyModuleAt } from "@svc/shared/lazy-module";

/** The token is missing, malformed, expired, or not for us (maps to 401 `invalid_token`). */
export class InvalidToken extends Error {
  /** Stable code, as RFC 6750 names the error. */
  readonly code = "invalid_token";
  constructor(message: string) {
    super(message);
    this.name = "InvalidToken";
  }
}

/** Options of {@linkcode createBearerVerifier}. */
export interface BearerVerifierOptions {
  /** Issuer URL; tokens must carry exactly this `iss`. */
  issuer: string;
  /**
   * Audiences accepted besides the resource URI of each call (e.g. `mcp` of deployments whose
   * issuer mints tokens without a resource indicator). @default {[]}
   */
  audience?: string | readonly string[];
  /** Fetch used for discovery. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Timeout of discovery and JWKS requests, ms. @default 5000 */
  timeoutMs?: number;
}

/** Per-call options of {@linkcode BearerVerifier.verify}. */
export interface VerifyOptions {
  /** The canonical resource URI of the protected resource: an accepted `aud`. */
  resource?: string;
}

/** Verifies bearer tokens. */
export interface BearerVerifier {
  readonly issuer: string;
  /**
   * Throws {@linkcode InvalidToken} unless the token is an access token whose `aud` holds
   * `resource` or a configured audience.
   */
  verify(token: string, options?: VerifyOptions): Promise<AuthInfo>;
  /** Loads the JWT library ahead of the first token (`verify` loads it otherwise). */
  prepare(): Promise<void>;
}

/**
 * The JWT library, imported on first use and by URL (shared/lifecycle/lazy_module.ts says why):
 * the server's start (and its health routes) need none of it, and its modules would add to the
 * time to the first answer.
 */
const loadJose = lazyModuleAt<typeof import("./jose.ts")>(import.meta.resolve("./jose.ts"));

/**
 * Claims OpenID Connect defines for ID tokens only (Core §3.1.3.6, §3.3.2.11; FAPI's `s_hash`):
 * no access token of a usual issuer carries them. Present at all, even empty, they refuse the
 * token. (`nonce` also reaches access tokens of issuers that copy the authorization request's
 * nonce into them, as mock-oidc and Keycloak before 25 do, when the client sent one; MCP clients
 * send none.)
 */
const ID_TOKEN_CLAIMS = ["nonce", "at_hash", "c_hash", "s_hash"] as const;

/**
 * JOSE `typ` values of access tokens, lowercased and without the optional `application/`
 * (RFC 7515 §4.1.9): `at+jwt` (RFC 9068) and plain `jwt`, which most issuers put on access and ID
 * tokens alike (Keycloak, Entra, mock-oidc); no `typ` at all is accepted as well (some issuers
 * set none).
 */
const ACCESS_TOKEN_TYPES = new Set(["jwt", "at+jwt"]);

/**
 * Why a verified JWT is not an access token, or undefined when nothing says so: a header `typ`
 * naming another kind of JWT (RFC 8725 §3.11 explicit typing: `logout+jwt`, `dpop+jwt`, ...), an
 * ID-token claim, or Keycloak's `typ` claim `ID` (its access tokens say `Bearer`). A plain
 * `typ: JWT` alone says nothing: an ID token typed so and carrying none of these claims cannot be
 * told from an access token, which is why the resource URI, never a client's id, is the audience
 * to accept.
 */
export function notAccessToken(
  header: { typ?: unknown },
  payload: Record<string, unknown>,
): string | undefined {
  if (header.typ !== undefined) {
    const typ = typeof header.typ === "string"
      ? header.typ.toLowerCase().replace(/^application\//, "")
      : undefined;
    if (typ === undefined || !ACCESS_TOKEN_TYPES.has(typ)) {
      return `typ ${JSON.stringify(header.typ)}`;
    }
  }
  const claim = ID_TOKEN_CLAIMS.find((name) => Object.hasOwn(payload, name));
  if (claim) return `${claim} claim`;
  if (typeof payload.typ === "string" && payload.typ.toLowerCase() === "id") return "typ claim ID";
  return undefined;
}

/** Creates a verifier; discovery happens on first use and is retried after a failure. */
export function createBearerVerifier(options: BearerVerifierOptions): BearerVerifier {
  const { issuer, timeoutMs = 5000 } = options;
  const extra = typeof options.audience === "string"
    ? [options.audience]
    : [...(options.audience ?? [])];
  const extraAudiences = extra.filter((audience) => audience !== "");
  const doFetch = options.fetch ?? fetch;
  let jwks: Promise<JWTVerifyGetKey> | undefined;
  const discover = async (): Promise<JWTVerifyGetKey> => {
    const { createRemoteJWKSet } = await loadJose();
    const url = `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;
    const res = await doFetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) throw new Error(`Cannot discover issuer: status ${res.status}`);
    const doc = await res.json() as { jwks_uri?: unknown };
    if (typeof doc.jwks_uri !== "string") throw new Error("Cannot discover issuer: no jwks_uri");
    return createRemoteJWKSet(new URL(doc.jwks_uri), { timeoutDuration: timeoutMs });
  };
  return {
    issuer,
    prepare: () => loadJose().then(() => {}),
    async verify(token, verifyOptions = {}) {
      const { decodeJwt, decodeProtectedHeader, errors, jwtVerify } = await loadJose();
      try {
        // a token that is not even a JWT is refused without touching the issuer
        decodeProtectedHeader(token);
        decodeJwt(token);
      } catch {
        throw new InvalidToken("malformed token");
      }
      jwks ??= discover();
      let keys: JWTVerifyGetKey;
      try {
        keys = await jwks;
      } catch (err) {
        jwks = undefined;
        throw err;
      }
      try {
        const audience = [...extraAudiences];
        if (verifyOptions.resource !== undefined) audience.push(verifyOptions.resource);
        // no accepted audience at all refuses every token (jose would skip the check)
        if (audience.length === 0) throw new InvalidToken("no accepted audience");
        const { payload, protectedHeader } = await jwtVerify(token, keys, { issuer, audience });
        const kind = notAccessToken(protectedHeader, payload);
        if (kind) throw new InvalidToken(`not an access token: ${kind}`);
        if (typeof payload.sub !== "string" || payload.sub === "") {
          throw new InvalidToken("token has no subject");
        }
        const scope = typeof payload.scope === "string" ? payload.scope.split(" ") : [];
        const clientId = [payload.client_id, payload.azp, payload.sub]
          .find((candidate) => typeof candidate === "string") as string;
        return {
          token,
          clientId,
          scopes: scope.filter((token) => token !== ""),
          expiresAt: payload.exp,
          extra: { subject: payload.sub },
        };
      } catch (err) {
        if (err instanceof InvalidToken) throw err;
        if (err instanceof errors.JOSEError) throw new InvalidToken(err.code);
        throw err;
      }
    },
  };
}
