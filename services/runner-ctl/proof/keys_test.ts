import assert from "node:assert/strict";
import { ProofError } from "./errors.ts";
import { importPublicKeyPem, importSigningKeyPem, keyIdOf } from "./keys.ts";
import { generatePemPair, pem } from "./_test_support.ts";

const badKey = (e: unknown) => e instanceof ProofError && e.code === "bad_key";

Deno.test("keys", async (t) => {
  const { privatePem, publicPem } = await generatePemPair();
  await t.step("keyid is the lowercase hex SHA-256 of the raw public key", async () => {
    const signing = await importSigningKeyPem(privatePem);
    const pub = await importPublicKeyPem(publicPem);
    assert.equal(signing.keyid, pub.keyid);
    assert.equal(signing.publicRaw.length, 32);
    // RFC 8032 test 1 public key: sha256 computed independently with `sha256sum`.
    const raw = Uint8Array.from(
      "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a".match(/../g)!,
      (h) => parseInt(h, 16),
    );
    assert.equal(
      await keyIdOf(raw),
      "21fe31dfa154a261626bf854046fd2271b7bed4b6abe45aa58877ef47f9721b9",
    );
  });
  await t.step("rejects wrong labels, two blocks, trailing text and other key types", async () => {
    await assert.rejects(importSigningKeyPem(publicPem), badKey);
    await assert.rejects(importPublicKeyPem(privatePem), badKey);
    await assert.rejects(importSigningKeyPem(privatePem + privatePem), badKey);
    await assert.rejects(importSigningKeyPem(privatePem + "junk"), badKey);
    await assert.rejects(importSigningKeyPem(""), badKey);
    await assert.rejects(importSigningKeyPem(pem("PRIVATE KEY", new Uint8Array(48))), badKey);
    const p256 = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
      "sign",
    ]);
    const der = new Uint8Array(await crypto.subtle.exportKey("pkcs8", p256.privateKey));
    await assert.rejects(importSigningKeyPem(pem("PRIVATE KEY", der)), badKey);
    const spki = new Uint8Array(await crypto.subtle.exportKey("spki", p256.publicKey));
    await assert.rejects(importPublicKeyPem(pem("PUBLIC KEY", spki)), badKey);
  });
  await t.step("error messages hold no key material", async () => {
    const body = privatePem.split("\n")[1];
    await assert.rejects(
      importPublicKeyPem(privatePem),
      (e) => badKey(e) && !(e as Error).message.includes(body),
    );
  });
});
