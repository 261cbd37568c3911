/**
 * DSSE envelopes of job proofs: {@linkcode signProof} signs a payload with Ed25519 over the PAE;
 * {@linkcode verifyProof} authenticates one envelope against one enrolled key and host identity
 * and returns the exact verified payload bytes, never anything unverified.
 *
 * Verification order: envelope size (before decoding), envelope shape, exactly one signature,
 * exact payload type, payload base64 and decoded size, signature over the PAE, then the payload
 * schema and host identity. Unknown envelope fields are ignored as DSSE requires; unknown payload
 * fields are rejected.
 *
 * @module
 */
import { decodeBase64, encodeBase64 } from "./base64.ts";
import { ProofError } from "./errors.ts";
import type { SigningKey, VerifyKey } from "./keys.ts";
import { preAuthEncoding } from "./pae.ts";
import { type JobProofPayload, PAYLOAD_TYPE_V1, validatePayload } from "./payload.ts";

/** Limit of the envelope bytes and of the decoded payload bytes. */
export const PROOF_LIMIT_BYTES = 64 * 1024;

/** A DSSE envelope as serialized. */
export interface DsseEnvelope {
  payload: string;
  payloadType: string;
  signatures: { keyid: string; sig: string }[];
}

/** A verified proof: the exact verified bytes and their parsed, validated form. */
export interface VerifiedProof {
  payloadText: string;
  payload: JobProofPayload;
}

/**
 * Signs `body` (the payload bytes) as a DSSE envelope with `payloadType`.
 *
 * @throws {ProofError} `too_large` when the payload passes {@linkcode PROOF_LIMIT_BYTES}.
 */
export async function signEnvelope(
  key: SigningKey,
  body: Uint8Array,
  payloadType: string = PAYLOAD_TYPE_V1,
): Promise<DsseEnvelope> {
  if (body.length > PROOF_LIMIT_BYTES) {
    throw new ProofError("too_large", `Cannot sign proof: payload over ${PROOF_LIMIT_BYTES} bytes`);
  }
  const pae = preAuthEncoding(payloadType, body);
  const sig = new Uint8Array(await crypto.subtle.sign("Ed25519", key.privateKey, pae.slice()));
  return {
    payload: encodeBase64(body),
    payloadType,
    signatures: [{ keyid: key.keyid, sig: encodeBase64(sig) }],
  };
}

/** Signs a version 1 payload (validated first) and returns the serialized envelope. */
export async function signProof(key: SigningKey, payload: JobProofPayload): Promise<string> {
  const body = new TextEncoder().encode(JSON.stringify(validatePayload(payload)));
  return JSON.stringify(await signEnvelope(key, body));
}

/**
 * Authenticates one serialized envelope.
 *
 * @throws {ProofError} with the failing step's code; the message holds no envelope bytes.
 */
export async function verifyProof(
  envelope: Uint8Array,
  options: {
    key: VerifyKey;
    expectedHostId: string;
    /** Limit of the decoded payload (tests lower it). @default {PROOF_LIMIT_BYTES} */
    payloadLimit?: number;
  },
): Promise<VerifiedProof> {
  const payloadLimit = options.payloadLimit ?? PROOF_LIMIT_BYTES;
  if (envelope.length > PROOF_LIMIT_BYTES) {
    throw new ProofError(
      "too_large",
      `Cannot verify proof: envelope over ${PROOF_LIMIT_BYTES} bytes`,
    );
  }
  const env = parseEnvelope(envelope);
  if (env.payloadType !== PAYLOAD_TYPE_V1) {
    throw new ProofError("wrong_payload_type", "Cannot verify proof: unsupported payloadType");
  }
  const body = decodeBase64(env.payload, "proof payload");
  if (body.length > payloadLimit) {
    throw new ProofError(
      "too_large",
      `Cannot verify proof: payload over ${payloadLimit} bytes`,
    );
  }
  const sig = decodeBase64(env.sig, "proof signature");
  if (env.keyid !== "" && env.keyid !== options.key.keyid) {
    throw new ProofError("bad_signature", "Cannot verify proof: keyid names another key");
  }
  const pae = preAuthEncoding(env.payloadType, body);
  const ok = sig.length === 64 &&
    await crypto.subtle.verify("Ed25519", options.key.publicKey, sig.slice(), pae.slice());
  if (!ok) throw new ProofError("bad_signature", "Cannot verify proof: signature does not verify");
  // From here on only the verified bytes are used.
  let payloadText: string;
  let parsed: unknown;
  try {
    payloadText = new TextDecoder("utf-8", { fatal: true }).decode(body);
    parsed = JSON.parse(payloadText);
  } catch {
    throw new ProofError("bad_payload", "Cannot accept payload: not UTF-8 JSON");
  }
  const payload = validatePayload(parsed);
  if (payload.host_id !== options.expectedHostId) {
    throw new ProofError(
      "host_mismatch",
      "Cannot accept payload: host_id is not the expected host",
    );
  }
  return { payloadText, payload };
}

function parseEnvelope(
  bytes: Uint8Array,
): { payload: string; payloadType: string; keyid: string; sig: string } {
  const bad = (why: string) => new ProofError("malformed_envelope", `Cannot read proof: ${why}`);
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw bad("not UTF-8 JSON");
  }
  if (!isObject(value)) throw bad("not a JSON object");
  const { payload, payloadType, signatures } = value;
  if (typeof payload !== "string") throw bad("payload is not a string");
  if (typeof payloadType !== "string") throw bad("payloadType is not a string");
  if (!Array.isArray(signatures)) throw bad("signatures is not an array");
  if (signatures.length !== 1) {
    throw new ProofError("signature_count", "Cannot verify proof: expected exactly one signature");
  }
  const [entry] = signatures;
  if (!isObject(entry) || typeof entry.sig !== "string") throw bad("sig is not a string");
  const keyid = entry.keyid ?? "";
  if (typeof keyid !== "string") throw bad("keyid is not a string");
  return { payload, payloadType, keyid, sig: entry.sig };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
