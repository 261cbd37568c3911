/**
 * The one base64 codec of the workspace, on Deno's native `Uint8Array.prototype.toBase64` and
 * `Uint8Array.fromBase64` (no `btoa` over binary strings, no hand-written tables). Two
 * alphabets: standard (RFC 4648 §4, written padded) and URL-safe (§5, written unpadded, as JOSE
 * and cursors use it). Decoding is strict about the alphabet (no whitespace, no mixing) and
 * lenient about padding; `canonical` also refuses non-zero trailing bits, so a byte string has
 * exactly one accepted encoding.
 *
 * @module
 */

/** Options of {@linkcode encodeBase64} and {@linkcode decodeBase64}. */
export interface Base64Options {
  /** The URL-safe alphabet (`-`, `_`), written without padding. @default {false} */
  url?: boolean;
}

/** Options of {@linkcode decodeBase64}. */
export interface DecodeBase64Options extends Base64Options {
  /** Refuse non-zero bits after the last byte (one encoding per byte string). @default {false} */
  canonical?: boolean;
}

const STD = /^[A-Za-z0-9+/]*={0,2}$/;
const URL_SAFE = /^[A-Za-z0-9_-]*={0,2}$/;

/**
 * Encodes bytes: standard base64 with padding, or unpadded base64url with `url`.
 *
 * @example Usage
 * ```ts
 * import { encodeBase64 } from "@svc/shared/base64";
 * import assert from "node:assert/strict";
 * assert.equal(encodeBase64(new Uint8Array([251, 255])), "+/8=");
 * assert.equal(encodeBase64(new Uint8Array([251, 255]), { url: true }), "-_8");
 * ```
 */
export function encodeBase64(bytes: Uint8Array, options: Base64Options = {}): string {
  return options.url
    ? bytes.toBase64({ alphabet: "base64url", omitPadding: true })
    : bytes.toBase64();
}

/**
 * Decodes base64 of one alphabet, padded or not.
 *
 * @throws {SyntaxError} `Cannot decode base64: …` for a character outside the alphabet,
 * misplaced padding, an impossible length, or (with `canonical`) non-zero trailing bits. The
 * message never quotes the input.
 */
export function decodeBase64(text: string, options: DecodeBase64Options = {}): Uint8Array {
  const alphabet = options.url ? "base64url" : "base64";
  if (!(options.url ? URL_SAFE : STD).test(text)) {
    throw new SyntaxError(`Cannot decode base64: not ${alphabet}`);
  }
  const body = text.replace(/=+$/, "");
  if (body.length % 4 === 1 || (text.length > body.length && text.length % 4 !== 0)) {
    throw new SyntaxError(`Cannot decode base64: not ${alphabet} (length or padding)`);
  }
  const padded = body + "=".repeat((4 - body.length % 4) % 4);
  try {
    return Uint8Array.fromBase64(padded, {
      alphabet,
      lastChunkHandling: options.canonical ? "strict" : "loose",
    });
  } catch {
    throw new SyntaxError(`Cannot decode base64: non-canonical ${alphabet}`);
  }
}
