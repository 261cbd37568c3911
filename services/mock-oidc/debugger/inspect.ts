/**
 * What the debugger shows of each token in a token response: a JWT's header and claims decoded,
 * and whether its signature verifies against the issuer's JWKS (checked with `jose`, not with
 * the mock's own signer, so the answer is independent of the code that signed).
 *
 * @module
 */

import { compactVerify, createLocalJWKSet, decodeJwt, decodeProtectedHeader } from "jose";
import type { JSONWebKeySet } from "jose";

/** The token fields of a token response the debugger looks at, in display order. */
const TOKEN_FIELDS = ["id_token", "access_token", "refresh_token"] as const;

/** One token of the response. */
export interface TokenReport {
  /** The response field it came from. */
  field: typeof TOKEN_FIELDS[number];
  /** Present for a JWT. */
  header?: Record<string, unknown>;
  /** Present for a JWT. */
  claims?: Record<string, unknown>;
  /** Signature check against the JWKS: verified, or why not; absent for opaque tokens. */
  signature?: { verified: true } | { verified: false; reason: string };
  /** Why the value is not shown decoded (opaque token, undecodable JWT). */
  note?: string;
}

/** Decode and verify every token of `body` against `jwks`. */
export async function inspectTokens(
  body: Record<string, unknown>,
  jwks: JSONWebKeySet,
): Promise<TokenReport[]> {
  const keySet = createLocalJWKSet(jwks);
  const reports: TokenReport[] = [];
  for (const field of TOKEN_FIELDS) {
    const value = body[field];
    if (typeof value !== "string") continue;
    if (value.split(".").length !== 3) {
      reports.push({ field, note: "opaque token (not a JWT)" });
      continue;
    }
    let header: Record<string, unknown>;
    let claims: Record<string, unknown>;
    try {
      header = decodeProtectedHeader(value) as Record<string, unknown>;
      claims = decodeJwt(value);
    } catch (err) {
      reports.push({ field, note: `not a decodable JWT: ${(err as Error).message}` });
      continue;
    }
    reports.push({ field, header, claims, signature: await verify(value, keySet) });
  }
  return reports;
}

async function verify(
  token: string,
  keySet: ReturnType<typeof createLocalJWKSet>,
): Promise<TokenReport["signature"]> {
  try {
    await compactVerify(token, keySet);
    return { verified: true };
  } catch (err) {
    const code = (err as { code?: string }).code;
    return { verified: false, reason: `${code ? `${code}: ` : ""}${(err as Error).message}` };
  }
}
