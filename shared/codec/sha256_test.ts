import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import fc from "fast-check";
import { hmacSha256, macEqual, sha256, sha256Hex } from "./sha256.ts";

const nodeSha = (d: Uint8Array | string) => createHash("sha256").update(d).digest("hex");
const nodeHmac = (k: Uint8Array, m: Uint8Array | string) =>
  createHmac("sha256", k).update(m).digest("hex");

Deno.test("sha256() gives the FIPS 180-4 test vectors", () => {
  assert.equal(
    sha256("").toHex(),
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
  assert.equal(
    sha256("abc").toHex(),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assert.equal(
    sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq").toHex(),
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
  assert.equal(
    sha256("a".repeat(1_000_000)).toHex(),
    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
  );
});

Deno.test("sha256() agrees with node:crypto at every length around the block boundaries", () => {
  const data = crypto.getRandomValues(new Uint8Array(300));
  for (let n = 0; n <= 300; n++) {
    assert.equal(sha256(data.subarray(0, n)).toHex(), nodeSha(data.subarray(0, n)), `length ${n}`);
  }
});

Deno.test("sha256() and hmacSha256() agree with node:crypto on random inputs", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 600 }), fc.string({ unit: "binary" }), (bytes, text) => {
      assert.equal(sha256(bytes).toHex(), nodeSha(bytes));
      // node hashes a JS string as UTF-8 too (lone surrogates become U+FFFD in both)
      assert.equal(sha256(text).toHex(), nodeSha(text));
    }),
    { numRuns: 2000 },
  );
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 200 }),
      fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.string({ unit: "binary" })),
      (key, message) => {
        assert.equal(hmacSha256(key)(message).toHex(), nodeHmac(key, message));
      },
    ),
    { numRuns: 2000 },
  );
});

Deno.test("hmacSha256() keeps its key state: one function, many messages", () => {
  const key = crypto.getRandomValues(new Uint8Array(32));
  const mac = hmacSha256(key);
  for (let n = 0; n < 200; n += 7) {
    const m = "x".repeat(n);
    assert.equal(mac(m).toHex(), nodeHmac(key, m));
  }
  // keys at, below and above the 64-byte block (longer keys are hashed first)
  for (const size of [63, 64, 65, 200]) {
    const k = crypto.getRandomValues(new Uint8Array(size));
    assert.equal(hmacSha256(k)("message").toHex(), nodeHmac(k, "message"), `key of ${size}`);
  }
});

Deno.test("sha256Hex() agrees with node:crypto", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), fc.string({ unit: "binary" }), (bytes, text) => {
      assert.equal(sha256Hex(bytes), nodeSha(bytes));
      assert.equal(sha256Hex(text), nodeSha(text));
    }),
    { numRuns: 2000 },
  );
});

Deno.test("sha256() hashes texts longer than its scratch buffer, and short ones after them", () => {
  for (const n of [1365, 1366, 1367, 5000, 100_000]) { // 3 × 1366 > 4096: the own-buffer path
    const text = "é".repeat(n);
    assert.equal(sha256Hex(text), nodeSha(text), `length ${n}`);
    assert.equal(sha256Hex("abc"), nodeSha("abc"));
  }
});

Deno.test("macEqual: equal, one bit apart at either end, other lengths, empty", () => {
  const a = sha256("x");
  assert.equal(macEqual(a, a.slice()), true);
  for (const at of [0, 31]) {
    const b = a.slice();
    b[at] ^= 1;
    assert.equal(macEqual(a, b), false);
  }
  assert.equal(macEqual(a, a.subarray(0, 31)), false);
  assert.equal(macEqual(a.subarray(0, 31), a), false);
  assert.equal(macEqual(new Uint8Array(0), new Uint8Array(0)), true);
});
