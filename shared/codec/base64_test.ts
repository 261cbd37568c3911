import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { decodeBase64, encodeBase64 } from "./base64.ts";

const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 97 + 251) & 0xff);

Deno.test("base64: both alphabets agree with node's Buffer, every length 0..40", () => {
  for (let n = 0; n <= 40; n++) {
    const b = bytes(n);
    const std = Buffer.from(b).toString("base64");
    const url = Buffer.from(b).toString("base64url");
    assert.equal(encodeBase64(b), std, `std ${n}`);
    assert.equal(encodeBase64(b, { url: true }), url, `url ${n}`);
    assert.deepEqual(decodeBase64(std), b);
    assert.deepEqual(decodeBase64(std.replace(/=+$/, "")), b, `unpadded std ${n}`);
    assert.deepEqual(decodeBase64(url, { url: true }), b);
    assert.deepEqual(decodeBase64(url + "=".repeat((4 - url.length % 4) % 4), { url: true }), b);
    assert.deepEqual(decodeBase64(std, { canonical: true }), b);
  }
});

Deno.test("base64: refuses other alphabets, whitespace, bad padding and lengths", () => {
  const bad: [string, boolean][] = [
    ["-_8=", false], // URL-safe characters in standard
    ["+/8", true], // standard characters in URL-safe
    ["YW Jj", false],
    ["YWJj\n", false],
    ["YQ=a", false],
    ["Y===", false],
    ["YWJjZ", false], // 4n+1 characters
    ["YQ=", false], // padding to a length that is not a multiple of 4
  ];
  for (const [text, url] of bad) {
    assert.throws(() => decodeBase64(text, { url }), (err: Error) => {
      assert.ok(err instanceof SyntaxError, text);
      assert.match(
        err.message,
        /^Cannot decode base64: not base64(url)?( \(length or padding\))?$/,
      );
      return true;
    }, JSON.stringify(text));
  }
});

Deno.test("base64: canonical refuses non-zero trailing bits, lenient decoding takes them", () => {
  // "YR" and "YQ" both carry the byte 0x61; only "YQ" has zero trailing bits.
  assert.deepEqual(decodeBase64("YR=="), new Uint8Array([0x61]));
  assert.deepEqual(decodeBase64("YQ==", { canonical: true }), new Uint8Array([0x61]));
  assert.throws(
    () => decodeBase64("YR==", { canonical: true }),
    /^SyntaxError: Cannot decode base64: non-canonical base64$/,
  );
  assert.throws(
    () => decodeBase64("YR", { url: true, canonical: true }),
    /^SyntaxError: Cannot decode base64: non-canonical base64url$/,
  );
});
