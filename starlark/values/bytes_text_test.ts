import assert from "node:assert/strict";
import { decodeRune, encodeRune, runes, utf8Decode, utf8Encode } from "./bytes_text.ts";

Deno.test("UTF-8 round trips through binary strings", () => {
  const text = "aΩ😀é";
  const bin = utf8Encode(text);
  assert.equal(bin.length, 1 + 2 + 4 + 2);
  assert.equal(utf8Decode(bin), text);
  assert.deepEqual(runes(bin), [0x61, 0x3a9, 0x1f600, 0xe9]);
});

Deno.test("invalid UTF-8 decodes rune by rune to U+FFFD", () => {
  assert.deepEqual(decodeRune("\xff", 0), [0xfffd, 1]);
  assert.deepEqual(decodeRune("\xf0\x9f", 0), [0xfffd, 1]); // truncated
  assert.equal(utf8Decode("a\xffb"), "a\ufffdb");
  assert.equal(encodeRune(0xd800), "\xef\xbf\xbd"); // surrogates encode as U+FFFD
});
