/**
 * OAuth bearer tokens of the Streamable HTTP transport: JWTs verified against the OIDC issuer's
 * JWKS (found through its discovery document), whose `aud` names this server: its canonical
 * resource URI (RFC 8707 / RFC 9728, given per call since it can follow the request's origin) or
 * one of the configured extra audiences. The verified `sub` becomes the subject the invocation
 * resolver hands to the tools.
 *
 * @example
 * ```ts ignore
 * const verifier = createBearerVerifier({ issuer: "http://127.0.0.1:8080/demo", audience: "mcp" });
 * const authInfo = await verifier.verify(token, { resource: "http://127.0.0.1:8090/mcp" });
 * ```
 * @module
 */
import type { JWTVerifyGetKey } from "jose";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { lazyModuleAt } from "@svc/shared/lazy-module";

/** The token is missing, malformed, expired, or not for us (maps to 401 `invalid_token`). */
export class InvalidToken extends Error {
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
   * Audiences accepted besides the resource URI of each call (e.g. `mcp` of deployments that
   * predate resource indicators). @default {[]}
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
  /** Throws {@linkcode InvalidToken} unless `aud` holds `resource` or a configured audience. */
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

/** Creates a verifier; discovery happens on first use and is retried after a failure. */
export function createBearerVerifier(options: BearerVerifierOptions): BearerVerifier {
  const { issuer, timeoutMs = 5000 } = options;
  const extra = typeof options.audience === "string"
    ? [options.audience]
    : [...(options.audience ?? [])];
  const extraAudiences = extra.filter((a) => a !== "");
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
        const { payload } = await jwtVerify(token, keys, { issuer, audience });
        if (typeof payload.sub !== "string" || payload.sub === "") {
          throw new InvalidToken("token has no subject");
        }
        const scope = typeof payload.scope === "string" ? payload.scope.split(" ") : [];
        const clientId = [payload.client_id, payload.azp, payload.sub]
          .find((v) => typeof v === "string") as string;
        return {
          token,
          clientId,
          scopes: scope.filter((s) => s !== ""),
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
