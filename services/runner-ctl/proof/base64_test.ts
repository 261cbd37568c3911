import assert from "node:assert/strict";
import { decodeBase64, encodeBase64 } from "./base64.ts";
import { ProofError } from "./errors.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

Deno.test("decodeBase64", async (t) => {
  await t.step("round-trips every length 0..40 with the standard alphabet", () => {
    for (let n = 0; n <= 40; n++) {
      const b = crypto.getRandomValues(new Uint8Array(n));
      assert.deepEqual(decodeBase64(encodeBase64(b), "x"), b);
    }
  });
  await t.step("accepts URL-safe with and without padding", () => {
    const b = new Uint8Array([0xfb, 0xff, 0xbf, 0x01]);
    assert.equal(encodeBase64(b), "+/+/AQ==");
    assert.deepEqual(decodeBase64("-_-_AQ==", "x"), b);
    assert.deepEqual(decodeBase64("-_-_AQ", "x"), b);
    assert.deepEqual(decodeBase64("aGk=", "x"), bytes("hi"));
  });
  await t.step("rejects bad input with bad_base64", () => {
    for (const bad of ["+/+/AQ", "-/+_", "aG k=", "aGk=\n", "a===", "aGk==", "aGl=", "*"]) {
      assert.throws(
        () => decodeBase64(bad, "payload"),
        (e) => e instanceof ProofError && e.code === "bad_base64" && !e.message.includes(bad),
        bad,
      );
    }
  });
});
