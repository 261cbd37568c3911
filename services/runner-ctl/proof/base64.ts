/**
 * Strict base64 for DSSE: {@linkcode encodeBase64} writes standard padded base64 and
 * {@linkcode decodeBase64} accepts exactly what DSSE verifiers must accept: the standard alphabet
 * with padding, or the URL-safe alphabet with or without padding. Whitespace, mixed alphabets,
 * misplaced padding and non-zero trailing bits are rejected (one encoding per byte string).
 *
 * @module
 */
import { decodeBase64 as kitDecode, encodeBase64 as kitEncode } from "@svc/shared/base64";
import { ProofError } from "./errors.ts";

const STD_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const URL_RE = /^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2}(?:==)?|[A-Za-z0-9_-]{3}=?)?$/;

/** Standard base64 with padding (the kit's codec). */
export function encodeBase64(bytes: Uint8Array): string {
  return kitEncode(bytes);
}

/**
 * Decodes standard (padded) or URL-safe (padded or not) base64, strictly.
 *
 * @throws {ProofError} `bad_base64` naming `what` (never the input).
 */
export function decodeBase64(text: string, what: string): Uint8Array {
  // DSSE's own rule on top of the kit's codec: standard base64 must be padded.
  const url = STD_RE.test(text) ? false : URL_RE.test(text) ? true : undefined;
  if (url === undefined) {
    throw new ProofError("bad_base64", `Cannot decode ${what}: not valid base64`);
  }
  try {
    return kitDecode(text, { url, canonical: true });
  } catch {
    throw new ProofError("bad_base64", `Cannot decode ${what}: non-canonical base64`);
  }
}
