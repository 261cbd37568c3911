/**
 * The one error type of job proofs: a stable `code` callers switch on, and a message in the
 * "Cannot <action>: <state>" form that never holds proof, payload or key bytes.
 *
 * @module
 */

/** Stable codes of {@linkcode ProofError}. */
export type ProofErrorCode =
  | "too_large"
  | "malformed_envelope"
  | "bad_base64"
  | "wrong_payload_type"
  | "signature_count"
  | "bad_key"
  | "bad_signature"
  | "bad_payload"
  | "host_mismatch";

/** A job proof could not be built, read or verified. */
export class ProofError extends Error {
  override name = "ProofError";
  /** Stable code for callers and tests. */
  readonly code: ProofErrorCode;

  constructor(code: ProofErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
