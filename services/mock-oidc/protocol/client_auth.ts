/**
 * Client authentication at the token, introspection and device endpoints:
 * `client_secret_basic`, `client_secret_post`, `client_secret_jwt` and `private_key_jwt`. Here
 * a request is only parsed: assertions get upstream's shape rules (`iss` = `sub`, `aud`, `exp`);
 * secrets, and the signature, expiry and `jti` of assertions, are checked for registered clients
 * only, at the token endpoint (`client_registry.ts`, `client_assertion.ts`); any other client
 * passes.
 *
 * @module
 */

import { decodeBase64 } from "@svc/shared/base64";
import { type DecodedJwt, decodeJwt } from "../tokens/jwt.ts";
import { invalidClient, invalidRequest } from "./oauth_error.ts";

/** Who the client says it is, and how. */
export interface ClientAuth {
  clientId?: string;
  /** The secret presented (`client_secret_basic`, `client_secret_post`). */
  secret?: string;
  /** The client assertion presented (`client_secret_jwt`, `private_key_jwt`), decoded. */
  assertion?: DecodedJwt;
  method:
    | "client_secret_basic"
    | "client_secret_post"
    | "client_secret_jwt"
    | "private_key_jwt"
    | "none";
}

const ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
const MAX_ASSERTION_LIFETIME_S = 120;

/** Identify the client of a request. Throws `invalid_client` / `invalid_request` on malformed input. */
export function authenticateClient(
  req: Request,
  params: URLSearchParams,
  audiences: { issuerUrl: string; endpointUrl: string },
): ClientAuth {
  const header = req.headers.get("authorization");
  if (header && /^basic /i.test(header)) {
    const { clientId, secret } = parseBasic(header.slice(6).trim());
    const posted = params.get("client_id");
    if (posted !== null && posted !== clientId) {
      throw invalidRequest("client_id in the body differs from the Basic credentials");
    }
    return { clientId, secret, method: "client_secret_basic" };
  }
  const assertion = params.get("client_assertion");
  if (assertion !== null) {
    const decoded = parseAssertion(assertion, params, audiences);
    // An HMAC says client_secret_jwt (RFC 7523 §2.2 with the client's secret as the key).
    const hmac = typeof decoded.header.alg === "string" && /^HS/.test(decoded.header.alg);
    return {
      clientId: decoded.claims.sub as string,
      assertion: decoded,
      method: hmac ? "client_secret_jwt" : "private_key_jwt",
    };
  }
  const clientId = params.get("client_id") ?? undefined;
  if (clientId !== undefined && params.has("client_secret")) {
    return { clientId, secret: params.get("client_secret")!, method: "client_secret_post" };
  }
  return { clientId, method: "none" };
}

function parseBasic(encoded: string): { clientId: string; secret: string } {
  let decoded: string;
  try {
    decoded = new TextDecoder("utf-8", { fatal: true }).decode(
      decodeBase64(encoded),
    );
  } catch {
    throw invalidClient("malformed Basic credentials");
  }
  const colon = decoded.indexOf(":");
  if (colon < 1) throw invalidClient("malformed Basic credentials");
  return {
    clientId: formDecode(decoded.slice(0, colon)),
    secret: formDecode(decoded.slice(colon + 1)),
  };
}

/** RFC 6749 §2.3.1: Basic credentials are form-encoded first; a bad escape is kept as sent. */
function formDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, "%20"));
  } catch {
    return text;
  }
}

function parseAssertion(
  assertion: string,
  params: URLSearchParams,
  audiences: { issuerUrl: string; endpointUrl: string },
): DecodedJwt {
  if (params.get("client_assertion_type") !== ASSERTION_TYPE) {
    throw invalidRequest(`client_assertion_type must be ${ASSERTION_TYPE}`);
  }
  const decoded = decodeJwt(assertion);
  if (!decoded) throw invalidClient("client_assertion is not a JWT");
  const claims = decoded.claims;
  const { iss, sub, aud, exp, iat } = claims;
  if (typeof sub !== "string" || iss !== sub) {
    throw invalidClient("client_assertion must have iss equal to sub (the client id)");
  }
  const clientId = params.get("client_id");
  if (clientId !== null && clientId !== sub) {
    throw invalidClient("client_assertion sub differs from client_id");
  }
  const auds = Array.isArray(aud) ? aud : [aud];
  const accepted = [audiences.issuerUrl, audiences.endpointUrl].map(trimSlash);
  if (auds.length !== 1 || typeof auds[0] !== "string" || !accepted.includes(trimSlash(auds[0]))) {
    throw invalidClient("client_assertion aud must be the issuer or the token endpoint URL");
  }
  if (typeof exp !== "number") throw invalidClient("client_assertion has no exp");
  if (typeof iat === "number" && exp - iat > MAX_ASSERTION_LIFETIME_S) {
    throw invalidClient(`client_assertion lifetime exceeds ${MAX_ASSERTION_LIFETIME_S}s`);
  }
  return decoded;
}

function trimSlash(url: string): string {
  return url.endsWith("/") ? url.slice(0, -1) : url;
}
