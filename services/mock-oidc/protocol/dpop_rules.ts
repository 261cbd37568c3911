/**
 * DPoP (RFC 9449) as this provider publishes it: the proof algorithms (discovery's
 * `dpop_signing_alg_values_supported`), the proof window, the server-nonce lifetimes and the
 * error of a refused proof. Small and without the verifier (`dpop.ts`, loaded on the first
 * request that carries a proof), so discovery and the endpoints can name them.
 *
 * @module
 */

import { ALGORITHMS } from "../keys/algorithms.ts";
import { OAuthError } from "./oauth_error.ts";

/** JWS algorithms a DPoP proof may use. */
export const DPOP_ALGORITHMS = [...ALGORITHMS, "Ed25519"] as const;

/** A proof's `iat` may be this far behind or ahead of the process clock, seconds. */
export const DPOP_PROOF_WINDOW_S = 60;

/** A server nonce is accepted this long after it was made, seconds. */
export const DPOP_NONCE_LIFETIME_S = 300;

/** A new server nonce is handed out once the current one is this old, seconds. */
export const DPOP_NONCE_ROTATE_S = 150;

/**
 * Whether a setting's list of issuer ids (`*`: every issuer) names `issuerId`
 * (`--dpop-nonce-issuers`, `--par-required-issuers`).
 */
export function issuerListed(issuers: readonly string[] | undefined, issuerId: string): boolean {
  return issuers !== undefined && (issuers.includes("*") || issuers.includes(issuerId));
}

/** Why a proof, or a DPoP-bound token, was refused: an RFC 9449 error code and a description. */
export class DpopError extends Error {
  /** `invalid_dpop_proof`, `use_dpop_nonce` or `invalid_token`. */
  readonly code: string;
  /** The nonce to send as `DPoP-Nonce` (with `use_dpop_nonce`). */
  readonly nonce?: string;
  constructor(code: string, message: string, nonce?: string) {
    super(message);
    this.name = "DpopError";
    this.code = code;
    this.nonce = nonce;
  }

  /** As the token endpoint answers it: 400 with the code, `DPoP-Nonce` when there is one. */
  atTokenEndpoint(): OAuthError {
    return new OAuthError(400, this.code, this.message, {
      headers: this.nonce ? { "DPoP-Nonce": this.nonce } : {},
    });
  }

  /** As a resource (userinfo) answers it: 401 with a `DPoP` challenge (RFC 9449 §7.1). */
  atResource(): OAuthError {
    const description = this.message.replace(/["\\]/g, "");
    const challenge = `DPoP error="${this.code}", error_description="${description}", ` +
      `algs="${DPOP_ALGORITHMS.join(" ")}"`;
    return new OAuthError(401, this.code, this.message, {
      headers: {
        "WWW-Authenticate": challenge,
        ...(this.nonce ? { "DPoP-Nonce": this.nonce } : {}),
      },
    });
  }
}
