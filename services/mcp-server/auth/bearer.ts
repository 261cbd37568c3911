/**
 * OAuth bearer tokens of the Streamable HTTP transport: JWTs verified against the OIDC issuer's
 * JWKS (found through its discovery document), with the configured audience. The verified `sub`
 * becomes the subject the invocation resolver hands to the tools.
 *
 * @example
 * ```ts ignore
 * const verifier = createBearerVerifier({ issuer: "http://127.0.0.1:8080/demo", audience: "mcp" });
 * const authInfo = await verifier.verify(token); // throws InvalidToken
 * ```
 * @module
 */
import {
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  jwtVerify,
  type JWTVerifyGetKey,
} from "jose";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";

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
  /** Expected `aud`. */
  audience: string;
  /** Fetch used for discovery. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Timeout of discovery and JWKS requests, ms. @default 5000 */
  timeoutMs?: number;
}

/** Verifies bearer tokens. */
export interface BearerVerifier {
  readonly issuer: string;
  verify(token: string): Promise<AuthInfo>;
}

/** Creates a verifier; discovery happens on first use and is retried after a failure. */
export function createBearerVerifier(options: BearerVerifierOptions): BearerVerifier {
  const { issuer, audience, timeoutMs = 5000 } = options;
  const doFetch = options.fetch ?? fetch;
  let jwks: Promise<JWTVerifyGetKey> | undefined;
  const discover = async (): Promise<JWTVerifyGetKey> => {
    const url = `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;
    const res = await doFetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) throw new Error(`Cannot discover issuer: status ${res.status}`);
    const doc = await res.json() as { jwks_uri?: unknown };
    if (typeof doc.jwks_uri !== "string") throw new Error("Cannot discover issuer: no jwks_uri");
    return createRemoteJWKSet(new URL(doc.jwks_uri), { timeoutDuration: timeoutMs });
  };
  return {
    issuer,
    async verify(token) {
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
