/**
 * SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104) for the short messages a request hashes (an
 * API key, a page cursor), synchronously and without allocating per block. Deno 2.9's
 * `node:crypto` costs ≈ 1.5 µs per `createHash` and ≈ 6 µs per `createHmac` (object set-up,
 * string conversion and the op calls, not the hashing itself); WebCrypto is asynchronous. Here a
 * key digest costs a fraction of a microsecond, and an HMAC reuses the key's precomputed inner
 * and outer states. `sha256_test.ts` checks every function against `node:crypto` on the FIPS
 * test vectors and on thousands of random inputs of every length around the block boundaries.
 *
 * Nothing here branches or indexes on the data, so timing does not depend on it; comparing a
 * MAC is {@linkcode macEqual}'s job.
 * @module
 */

const K = new Int32Array([
  0x428a2f98,
  0x71374491,
  0xb5c0fbcf,
  0xe9b5dba5,
  0x3956c25b,
  0x59f111f1,
  0x923f82a4,
  0xab1c5ed5,
  0xd807aa98,
  0x12835b01,
  0x243185be,
  0x550c7dc3,
  0x72be5d74,
  0x80deb1fe,
  0x9bdc06a7,
  0xc19bf174,
  0xe49b69c1,
  0xefbe4786,
  0x0fc19dc6,
  0x240ca1cc,
  0x2de92c6f,
  0x4a7484aa,
  0x5cb0a9dc,
  0x76f988da,
  0x983e5152,
  0xa831c66d,
  0xb00327c8,
  0xbf597fc7,
  0xc6e00bf3,
  0xd5a79147,
  0x06ca6351,
  0x14292967,
  0x27b70a85,
  0x2e1b2138,
  0x4d2c6dfc,
  0x53380d13,
  0x650a7354,
  0x766a0abb,
  0x81c2c92e,
  0x92722c85,
  0xa2bfe8a1,
  0xa81a664b,
  0xc24b8b70,
  0xc76c51a3,
  0xd192e819,
  0xd6990624,
  0xf40e3585,
  0x106aa070,
  0x19a4c116,
  0x1e376c08,
  0x2748774c,
  0x34b0bcb5,
  0x391c0cb3,
  0x4ed8aa4a,
  0x5b9cca4f,
  0x682e6ff3,
  0x748f82ee,
  0x78a5636f,
  0x84c87814,
  0x8cc70208,
  0x90befffa,
  0xa4506ceb,
  0xbef9a3f7,
  0xc67178f2,
]);
const INITIAL = new Int32Array([
  0x6a09e667,
  0xbb67ae85,
  0x3c6ef372,
  0xa54ff53a,
  0x510e527f,
  0x9b05688c,
  0x1f83d9ab,
  0x5be0cd19,
]);
const W = new Int32Array(64);

/** Folds the 64-byte blocks of `data[from, to)` into `state`. */
function blocks(state: Int32Array, data: Uint8Array, from: number, to: number): void {
  let a: number, b: number, c: number, d: number, e: number, f: number, g: number, h: number;
  for (let p = from; p + 64 <= to; p += 64) {
    for (let i = 0; i < 16; i++) {
      const j = p + i * 4;
      W[i] = (data[j] << 24) | (data[j + 1] << 16) | (data[j + 2] << 8) | data[j + 3];
    }
    for (let i = 16; i < 64; i++) {
      const x = W[i - 15];
      const y = W[i - 2];
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      W[i] = (W[i - 16] + s0 + W[i - 7] + s1) | 0;
    }
    a = state[0], b = state[1], c = state[2], d = state[3];
    e = state[4], f = state[5], g = state[6], h = state[7];
    for (let i = 0; i < 64; i++) {
      const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (h + s1 + ((e & f) ^ (~e & g)) + K[i] + W[i]) | 0;
      const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g, g = f, f = e, e = (d + t1) | 0;
      d = c, c = b, b = a, a = (t1 + t2) | 0;
    }
    state[0] = (state[0] + a) | 0, state[1] = (state[1] + b) | 0;
    state[2] = (state[2] + c) | 0, state[3] = (state[3] + d) | 0;
    state[4] = (state[4] + e) | 0, state[5] = (state[5] + f) | 0;
    state[6] = (state[6] + g) | 0, state[7] = (state[7] + h) | 0;
  }
}

const TAIL = new Uint8Array(128);
const STATE = new Int32Array(8);

/**
 * Hashes `data[0, length)` starting from `start` (left as it is), as if `prefixBytes` bytes had
 * already been folded into it, and writes the 32-byte digest into `out`. No typed array is
 * created here: making one costs more than a block of hashing.
 */
function finish(
  start: Int32Array,
  prefixBytes: number,
  data: Uint8Array,
  length: number,
  out: Uint8Array,
): Uint8Array {
  const state = STATE;
  for (let i = 0; i < 8; i++) state[i] = start[i];
  const whole = length - (length % 64);
  blocks(state, data, 0, whole);
  const rest = length - whole;
  for (let i = 0; i < rest; i++) TAIL[i] = data[whole + i];
  TAIL[rest] = 0x80;
  const tail = rest < 56 ? 64 : 128;
  for (let i = rest + 1; i < tail - 8; i++) TAIL[i] = 0;
  const bits = (prefixBytes + length) * 8; // exact below 2^53 bits
  const high = Math.floor(bits / 0x1_0000_0000);
  TAIL[tail - 8] = high >>> 24, TAIL[tail - 7] = high >>> 16;
  TAIL[tail - 6] = high >>> 8, TAIL[tail - 5] = high;
  TAIL[tail - 4] = bits >>> 24, TAIL[tail - 3] = bits >>> 16;
  TAIL[tail - 2] = bits >>> 8, TAIL[tail - 1] = bits;
  blocks(state, TAIL, 0, tail);
  for (let i = 0; i < 8; i++) {
    const v = state[i];
    out[i * 4] = v >>> 24, out[i * 4 + 1] = v >>> 16, out[i * 4 + 2] = v >>> 8, out[i * 4 + 3] = v;
  }
  return out;
}

const encoder = new TextEncoder();
const scratch = new Uint8Array(4096);

/**
 * `text` as UTF-8: short texts (the common case) in a shared scratch buffer, valid until the next
 * call; longer ones in a buffer of their own, so hashing one large text does not keep its size
 * allocated for ever.
 */
function utf8(text: string): { bytes: Uint8Array; length: number } {
  if (text.length * 3 > scratch.length) {
    const bytes = encoder.encode(text);
    return { bytes, length: bytes.length };
  }
  return { bytes: scratch, length: encoder.encodeInto(text, scratch).written };
}

function bytesOf(data: Uint8Array | string): { bytes: Uint8Array; length: number } {
  return typeof data === "string" ? utf8(data) : { bytes: data, length: data.length };
}

/**
 * The SHA-256 digest of `data` (a string is hashed as its UTF-8 bytes).
 *
 * @example Usage
 * ```ts
 * import { sha256 } from "@svc/shared/sha256";
 * if (sha256("abc").toHex() !== "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") {
 *   throw new Error("not SHA-256");
 * }
 * ```
 */
export function sha256(data: Uint8Array | string): Uint8Array {
  const { bytes, length } = bytesOf(data);
  return finish(INITIAL, 0, bytes, length, new Uint8Array(32));
}

const DIGEST = new Uint8Array(32);

/** The SHA-256 digest of `data` in lower-case hex, without an intermediate array. */
export function sha256Hex(data: Uint8Array | string): string {
  const { bytes, length } = bytesOf(data);
  return finish(INITIAL, 0, bytes, length, DIGEST).toHex();
}

/**
 * HMAC-SHA-256 under `key`: returns a function that computes the MAC of a message. The key's
 * inner and outer states are computed once, so each MAC costs the message's blocks plus one.
 *
 * @example Usage
 * ```ts
 * import { hmacSha256 } from "@svc/shared/sha256";
 * const mac = hmacSha256(new TextEncoder().encode("key"));
 * const hex = mac("The quick brown fox jumps over the lazy dog").toHex();
 * if (hex !== "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8") {
 *   throw new Error("not HMAC-SHA-256");
 * }
 * ```
 */
export function hmacSha256(key: Uint8Array): (message: Uint8Array | string) => Uint8Array {
  const block = new Uint8Array(64);
  block.set(key.length > 64 ? sha256(key) : key);
  const pad = new Uint8Array(64);
  const inner = new Int32Array(INITIAL);
  const outer = new Int32Array(INITIAL);
  for (let i = 0; i < 64; i++) pad[i] = block[i] ^ 0x36;
  blocks(inner, pad, 0, 64);
  for (let i = 0; i < 64; i++) pad[i] = block[i] ^ 0x5c;
  blocks(outer, pad, 0, 64);
  const innerDigest = new Uint8Array(32);
  return (message) => {
    const { bytes, length } = bytesOf(message);
    finish(inner, 64, bytes, length, innerDigest);
    return finish(outer, 64, innerDigest, 32, new Uint8Array(32));
  };
}

/**
 * Whether two MACs are equal, in time that depends on their length only (not on where they first
 * differ), as node:crypto's `timingSafeEqual` — without loading Node's crypto module.
 *
 * @example Usage
 * ```ts
 * import { macEqual } from "@svc/shared/sha256";
 * if (!macEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2]))) throw new Error("equal");
 * if (macEqual(new Uint8Array([1, 2]), new Uint8Array([1, 3]))) throw new Error("differ");
 * if (macEqual(new Uint8Array([1]), new Uint8Array([1, 2]))) throw new Error("lengths differ");
 * ```
 */
export function macEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}
