/**
 * Job proofs: DSSE envelopes signed with Ed25519 over the version 1 job-proof payload.
 *
 * @module
 */
export { decodeBase64, encodeBase64 } from "./base64.ts";
export {
  type DsseEnvelope,
  PROOF_LIMIT_BYTES,
  signEnvelope,
  signProof,
  type VerifiedProof,
  verifyProof,
} from "./envelope.ts";
export { ProofError, type ProofErrorCode } from "./errors.ts";
export {
  importPublicKeyPem,
  importSigningKeyPem,
  keyIdOf,
  type SigningKey,
  type VerifyKey,
} from "./keys.ts";
export { preAuthEncoding } from "./pae.ts";
export { buildPayload, type JobProofPayload, PAYLOAD_TYPE_V1, validatePayload } from "./payload.ts";
