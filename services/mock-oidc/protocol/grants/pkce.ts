/**
 * PKCE (RFC 7636) check at code redemption. Unlike upstream, a code issued with a challenge
 * cannot be redeemed without a verifier (no downgrade).
 *
 * @module
 */

import { base64url } from "../../tokens/jwt.ts";
import { invalidGrant } from "../oauth_error.ts";

const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** Throws `invalid_grant` unless `verifier` matches the code's challenge. */
export async function verifyPkce(
  code: { codeChallenge?: string; codeChallengeMethod?: "plain" | "S256" },
  verifier: string | null,
): Promise<void> {
  if (code.codeChallenge === undefined) {
    if (verifier !== null) {
      throw invalidGrant("code_verifier sent but the authorization request had no code_challenge");
    }
    return;
  }
  if (verifier === null) throw invalidGrant("code_verifier is required for this code");
  if (!VERIFIER.test(verifier)) {
    throw invalidGrant("code_verifier must be 43-128 characters of [A-Za-z0-9-._~]");
  }
  const computed = code.codeChallengeMethod === "S256"
    ? base64url(
      new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))),
    )
    : verifier;
  if (computed !== code.codeChallenge) {
    throw invalidGrant("invalid_pkce: code_verifier does not compute to code_challenge");
  }
}
