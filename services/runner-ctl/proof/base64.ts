/**
 * Strict base64 for DSSE: {@linkcode encodeBase64} writes standard padded base64 and
 * {@linkcode decodeBase64} accepts exactly what DSSE verifiers must accept: the standard alphabet
 * with padding, or the URL-safe alphabet with or without padding. Whitespace, mixed alphabets,
 * misplaced padding and non-zero trailing bits are rejected (one encoding per byte string).
 *
 * @module
 */
import { ProofError } from "./errors.ts";

const STD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL = STD.slice(0, 62) + "-_";
const STD_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const URL_RE = /^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2}(?:==)?|[A-Za-z0-9_-]{3}=?)?$/;

/** Standard base64 with padding. */
export function encodeBase64(bytes: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin);
}

/**
 * Decodes standard (padded) or URL-safe (padded or not) base64, strictly.
 *
 * @throws {ProofError} `bad_base64` naming `what` (never the input).
 */
export function decodeBase64(text: string, what: string): Uint8Array {
  const alphabet = STD_RE.test(text) ? STD : URL_RE.test(text) ? URL : undefined;
  if (alphabet === undefined) {
    throw new ProofError("bad_base64", `Cannot decode ${what}: not valid base64`);
  }
  const body = text.replace(/=+$/, "");
  const out = new Uint8Array(Math.floor((body.length * 3) / 4));
  let acc = 0, bits = 0, n = 0;
  for (const ch of body) {
    acc = ((acc << 6) | alphabet.indexOf(ch)) & 0xffff; // at most 13 live bits
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (acc >> bits) & 0xff;
    }
  }
  if ((acc & ((1 << bits) - 1)) !== 0) {
    throw new ProofError("bad_base64", `Cannot decode ${what}: non-canonical base64`);
  }
  return out;
}
