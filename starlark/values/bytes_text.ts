/**
 * Starlark strings are byte strings. We hold them as JS "binary strings": one char per byte
 * (code units 0–255), converting to/from UTF-8 only at boundaries.
 */

const enc = new TextEncoder();
const dec = new TextDecoder("utf-8", { fatal: false });

/** True when every char of the JS string is ASCII (then binary and text forms coincide). */
function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 127) return false;
  return true;
}

/** Unicode text (UTF-16 JS string) → binary string of its UTF-8 bytes. */
export function utf8Encode(text: string): string {
  if (isAscii(text)) return text;
  return bytesToBinary(enc.encode(text));
}

/** Binary string → Unicode text; invalid UTF-8 becomes U+FFFD. Text (chars > 0xFF) is kept. */
export function utf8Decode(bin: string): string {
  if (isAscii(bin)) return bin;
  for (let i = 0; i < bin.length; i++) if (bin.charCodeAt(i) > 0xff) return bin;
  return dec.decode(binaryToBytes(bin));
}

function bytesToBinary(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i += 8192) {
    s += String.fromCharCode(...b.subarray(i, i + 8192));
  }
  return s;
}

function binaryToBytes(s: string): Uint8Array {
  const b = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i);
  return b;
}

/**
 * Decode one UTF-8 rune at byte offset i of a binary string. Returns [codepoint, size];
 * invalid encodings yield [0xFFFD, 1] as Go's utf8.DecodeRuneInString does.
 */
export function decodeRune(s: string, i: number): [number, number] {
  const b0 = s.charCodeAt(i);
  if (b0 < 0x80) return [b0, 1];
  const n = s.length;
  const cont = (k: number) => {
    const b = i + k < n ? s.charCodeAt(i + k) : -1;
    return b >= 0x80 && b < 0xc0 ? b & 0x3f : -1;
  };
  if (b0 >= 0xc2 && b0 < 0xe0) {
    const c1 = cont(1);
    if (c1 < 0) return [0xfffd, 1];
    return [((b0 & 0x1f) << 6) | c1, 2];
  }
  if (b0 >= 0xe0 && b0 < 0xf0) {
    const c1 = cont(1), c2 = cont(2);
    if (c1 < 0 || c2 < 0) return [0xfffd, 1];
    const r = ((b0 & 0x0f) << 12) | (c1 << 6) | c2;
    if (r < 0x800 || (r >= 0xd800 && r < 0xe000)) return [0xfffd, 1];
    return [r, 3];
  }
  if (b0 >= 0xf0 && b0 < 0xf5) {
    const c1 = cont(1), c2 = cont(2), c3 = cont(3);
    if (c1 < 0 || c2 < 0 || c3 < 0) return [0xfffd, 1];
    const r = ((b0 & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3;
    if (r < 0x10000 || r > 0x10ffff) return [0xfffd, 1];
    return [r, 4];
  }
  return [0xfffd, 1];
}

/** Encode one code point as a binary UTF-8 string (surrogates → U+FFFD). */
export function encodeRune(cp: number): string {
  if (cp < 0x80) return String.fromCharCode(cp);
  if ((cp >= 0xd800 && cp < 0xe000) || cp > 0x10ffff) cp = 0xfffd;
  return utf8Encode(String.fromCodePoint(cp));
}

import { current } from "../thread.ts";

/** Code points of a binary string (invalid bytes → U+FFFD each). */
export function runes(s: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < s.length;) {
    const [r, n] = decodeRune(s, i);
    out.push(r);
    i += n;
    if ((out.length & 0xfff) === 0) current.charge(1024); // a step per 4 runes
  }
  return out;
}
