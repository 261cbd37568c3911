import assert from "node:assert/strict";
import { preAuthEncoding } from "./pae.ts";

Deno.test("preAuthEncoding", async (t) => {
  await t.step("matches the DSSE specification's test vector", () => {
    const pae = preAuthEncoding(
      "http://example.com/HelloWorld",
      new TextEncoder().encode("hello world"),
    );
    assert.equal(
      new TextDecoder().decode(pae),
      "DSSEv1 29 http://example.com/HelloWorld 11 hello world",
    );
  });
  await t.step("measures UTF-8 bytes, not string length", () => {
    const pae = preAuthEncoding("é", new Uint8Array([0xc3, 0xa9]));
    assert.deepEqual([...pae], [...new TextEncoder().encode("DSSEv1 2 é 2 é")]);
  });
  await t.step("encodes an empty type and body", () => {
    assert.equal(new TextDecoder().decode(preAuthEncoding("", new Uint8Array())), "DSSEv1 0  0 ");
  });
});
