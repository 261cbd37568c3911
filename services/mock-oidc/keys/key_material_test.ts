import assert from "node:assert/strict";
import { algorithmOfJwk, bindIssuerKey, generatePrivateJwk } from "./key_material.ts";
import bundled from "./bundled_keys.json" with { type: "json" };
import bundledCerts from "./bundled_certs.json" with { type: "json" };

Deno.test("algorithmOfJwk: the curve names an EC or OKP key's algorithm; RSA takes the fallback", () => {
  const cases: [JsonWebKey, string, string | undefined][] = [
    [{ kty: "OKP", crv: "Ed25519" }, "RS256", "EdDSA"],
    [{ kty: "EC", crv: "P-521" }, "RS256", "ES512"],
    [{ kty: "EC", crv: "P-384" }, "ES256", "ES384"],
    [{ kty: "EC", crv: "P-256" }, "ES512", "ES256"],
    [{ kty: "EC", crv: "P-521", alg: "ES256" }, "RS256", undefined],
    [{ kty: "EC", crv: "P-521", alg: "ES512" }, "RS256", "ES512"],
    [{ kty: "OKP", crv: "Ed25519", alg: "EdDSA" }, "RS256", "EdDSA"],
    [{ kty: "OKP", crv: "X25519" }, "RS256", undefined],
    [{ kty: "OKP", crv: "Ed448" }, "EdDSA", undefined],
    [{ kty: "RSA" }, "PS256", "PS256"],
    [{ kty: "RSA" }, "EdDSA", "RS256"],
    [{ kty: "RSA", alg: "HS256" }, "RS256", undefined],
  ];
  for (const [jwk, fallback, want] of cases) {
    // deno-lint-ignore no-explicit-any
    assert.equal(algorithmOfJwk(jwk, fallback as any), want, JSON.stringify([jwk, fallback]));
  }
});

Deno.test("a bound key's public JWK carries x5c and its x5t#S256, never a private member", async () => {
  for (const alg of ["ES512", "EdDSA", "PS256"] as const) {
    const key = await bindIssuerKey(await generatePrivateJwk(alg), { kid: "k", alg });
    const jwk = key.publicJwk as unknown as Record<string, unknown>;
    assert.equal(jwk.alg, alg);
    assert.equal((jwk.x5c as string[]).length, 1);
    const der = Uint8Array.fromBase64((jwk.x5c as string[])[0]);
    const thumb = new Uint8Array(await crypto.subtle.digest("SHA-256", der));
    assert.equal(jwk["x5t#S256"], thumb.toBase64({ alphabet: "base64url", omitPadding: true }));
    for (const member of ["d", "p", "q", "dp", "dq", "qi"]) assert.equal(jwk[member], undefined);
    assert.deepEqual(JSON.parse(key.jwksJson).keys[0], jwk);
  }
});

Deno.test("the bundled keys' certificates made ahead are those bindIssuerKey makes for them", async () => {
  // bundled_certs.json is what the first JWKS answers serve for the bundled keys: a key change
  // without its certificate (or a change of how certificates are made) fails here. Regenerate
  // each entry as `{ x5c: publicJwk.x5c[0], x5tS256: publicJwk["x5t#S256"] }` of a key bound
  // without `certificate`.
  assert.equal(bundledCerts.certificates.length, bundled.keys.length);
  for (const [i, jwk] of bundled.keys.entries()) {
    const made = await bindIssuerKey(jwk, { kid: "default", alg: "RS256" });
    const ahead = await bindIssuerKey(jwk, {
      kid: "default",
      alg: "RS256",
      certificate: bundledCerts.certificates[i],
    });
    assert.equal(ahead.jwksJson, made.jwksJson, `bundled key ${i}`);
    assert.deepEqual(bundledCerts.certificates[i], {
      x5c: made.publicJwk.x5c[0],
      x5tS256: (made.publicJwk as unknown as Record<string, unknown>)["x5t#S256"],
    });
  }
});

Deno.test("a certificate given to bindIssuerKey is the one its JWK carries", async () => {
  const [jwk] = bundled.keys;
  const key = await bindIssuerKey(jwk, {
    kid: "k",
    alg: "RS256",
    certificate: { x5c: "AAAA", x5tS256: "BBBB" },
  });
  assert.deepEqual(key.publicJwk.x5c, ["AAAA"]);
  assert.equal((key.publicJwk as unknown as Record<string, unknown>)["x5t#S256"], "BBBB");
});
