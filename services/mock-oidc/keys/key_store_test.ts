import assert from "node:assert/strict";
import { importJWK, jwtVerify } from "jose";
import { ALGORITHMS } from "./algorithms.ts";
import { createKeyStore } from "./key_store.ts";
import { createOpenSslSigner, openSslUnavailable } from "./openssl.ts";
import type { Signer } from "./signer.ts";
import { createWebCryptoPool } from "./webcrypto_pool.ts";
import { signJwt } from "../tokens/jwt.ts";
import { skipSuite } from "@svc/testing";

const noOpenSsl = openSslUnavailable();
const BACKENDS: Record<string, { signer?: () => Signer; ignore?: string }> = {
  openssl: { signer: () => createOpenSslSigner(), ignore: noOpenSsl },
  webcrypto: {},
  "the webcrypto worker pool": { signer: () => createWebCryptoPool({ size: 2 }) },
};

for (const alg of ALGORITHMS) {
  for (const [backend, { signer: open, ignore }] of Object.entries(BACKENDS)) {
    Deno.test({
      name: `${alg} tokens signed via ${backend} verify with jose against the JWKS` +
        (ignore ? ` (ignored: ${ignore})` : ""),
      ignore: skipSuite({
        module: import.meta.url,
        part: `${backend} backend`,
        needs: ignore && `OpenSSL's libcrypto through FFI (${ignore})`,
      }),
      async fn() {
        const signer = open?.();
        try {
          const store = createKeyStore({ algorithm: alg, signer, spareKeys: 0 });
          const { keys: [jwk] } = await store.jwks("issuer1");
          assert.equal((jwk as { kid?: string }).kid, "issuer1");
          assert.equal(jwk.alg, alg);
          assert.equal((jwk as Record<string, unknown>).d, undefined);
          const token = await signJwt(await store.issuerKey("issuer1"), { typ: "JWT" }, {
            sub: "x",
          });
          const { payload, protectedHeader } = await jwtVerify(token, await importJWK(jwk, alg));
          assert.equal(payload.sub, "x");
          assert.equal(protectedHeader.kid, "issuer1");
        } finally {
          await signer?.close();
        }
      },
    });
  }
}

Deno.test("an issuer keeps one key and concurrent first touches share it", async () => {
  let generated = 0;
  const store = createKeyStore({
    spareKeys: 0,
    generate: async (alg) => {
      generated++;
      const { generatePrivateJwk } = await import("./key_material.ts");
      return await generatePrivateJwk(alg);
    },
  });
  const [a, b] = await Promise.all([store.jwks("same"), store.jwks("same")]);
  assert.deepEqual(a, b);
  assert.deepEqual(await store.jwks("same"), a);
  assert.equal(generated, 1);
  assert.notDeepEqual(await store.jwks("other"), a);
});

Deno.test("initial keys go to the first issuers touched, re-keyed with the issuer id", async () => {
  const { default: bundled } = await import("./bundled_keys.json", { with: { type: "json" } });
  const store = createKeyStore({
    initialKeys: [{ jwk: bundled.keys[0], alg: "RS256" }],
    spareKeys: 0,
  });
  const { keys: [jwk] } = await store.jwks("first");
  assert.equal(jwk.n, bundled.keys[0].n);
  assert.equal((jwk as { kid: string }).kid, "first");
  const { keys: [second] } = await store.jwks("second");
  assert.notEqual(second.n, bundled.keys[0].n);
});

Deno.test("a slow key generation for one issuer does not hold up another issuer", async () => {
  const { default: bundled } = await import("./bundled_keys.json", { with: { type: "json" } });
  let release: (jwk: JsonWebKey) => void = () => {};
  const store = createKeyStore({
    initialKeys: [{ jwk: bundled.keys[0], alg: "RS256" }],
    spareKeys: 0,
    generate: () => new Promise((resolve) => release = resolve),
  });
  await store.jwks("ready");
  const slow = store.jwks("slow");
  const fast = await store.jwks("ready"); // answers while "slow" is still generating
  assert.equal((fast.keys[0] as { kid: string }).kid, "ready");
  release(bundled.keys[1]);
  assert.equal(((await slow).keys[0] as { kid: string }).kid, "slow");
});

Deno.test("spare keys are generated ahead so a new issuer does not wait for generation", async () => {
  let generated = 0;
  const { generatePrivateJwk } = await import("./key_material.ts");
  const store = createKeyStore({
    algorithm: "ES256",
    spareKeys: 1,
    generate: (alg) => (generated++, generatePrivateJwk(alg)),
  });
  assert.equal(generated, 1); // started at construction, before any issuer is touched
  await store.jwks("first");
  assert.equal(generated, 2); // the spare was used and replaced
  await store.jwks("second");
});

Deno.test("a burst of new issuers generates at most maxGenerating keys at once", async () => {
  const { generatePrivateJwk } = await import("./key_material.ts");
  for (const maxGenerating of [1, 2]) {
    let running = 0;
    let most = 0;
    const store = createKeyStore({
      algorithm: "ES256",
      spareKeys: 0,
      maxGenerating,
      generate: async (alg) => {
        running++;
        most = Math.max(most, running);
        // real clock: a key generation that takes a while, so generations overlap up to the bound
        await new Promise((r) => setTimeout(r, 5));
        running--;
        return await generatePrivateJwk(alg);
      },
    });
    const jwks = await Promise.all(
      Array.from({ length: 10 }, (_, i) => store.jwks(`burst-${i}`)),
    );
    assert.equal(jwks.length, 10);
    assert.equal(most, maxGenerating);
  }
});

Deno.test("a bundled key's JWKS is served before its import, byte for byte the bound key's", async () => {
  const { default: bundled } = await import("./bundled_keys.json", { with: { type: "json" } });
  const { default: certs } = await import("./bundled_certs.json", { with: { type: "json" } });
  const presets = () =>
    bundled.keys.slice(0, 2).map((jwk, i) => ({
      jwk,
      alg: "RS256" as const,
      certificate: certs.certificates[i],
    }));
  const imported = createKeyStore({ initialKeys: presets(), spareKeys: 0 });
  const bound = [
    (await imported.issuerKey("first")).jwksJson,
    (await imported.issuerKey("second")).jwksJson,
  ];

  const store = createKeyStore({ initialKeys: presets(), spareKeys: 0 });
  const early = await store.jwksJson("first");
  assert.equal(early, bound[0]);
  assert.equal(store.peek("first"), undefined); // nothing imported yet
  assert.equal(await store.jwksJson("first"), early); // served again as it was
  // The served key stays the issuer's: the next issuer gets the next initial key.
  assert.equal(await store.jwksJson("second"), bound[1]);
  const key = await store.issuerKey("first");
  assert.equal(key.jwksJson, early);
  assert.equal(key.kid, "first");
  const { payload } = await jwtVerify(
    await signJwt(key, {}, { sub: "s" }),
    await importJWK(JSON.parse(early).keys[0], "RS256"),
  );
  assert.equal(payload.sub, "s");
  assert.equal((await store.issuerKey("second")).jwksJson, bound[1]);
});

Deno.test("a key without a certificate made ahead is imported for its first JWKS", async () => {
  const { default: bundled } = await import("./bundled_keys.json", { with: { type: "json" } });
  const store = createKeyStore({
    initialKeys: [{ jwk: bundled.keys[0], alg: "RS256" }],
    spareKeys: 0,
  });
  const json = await store.jwksJson("first");
  assert.equal(store.peek("first")?.jwksJson, json);
  assert.equal(JSON.parse(json).keys[0].n, bundled.keys[0].n);
});
