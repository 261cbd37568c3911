import assert from "node:assert/strict";
import {
  calculateJwkThumbprint,
  compactVerify,
  decodeProtectedHeader,
  importJWK,
  type JWK,
} from "jose";
import { claimsOf } from "../protocol/_test_support.ts";
import { dpopProof, isDpopPrivateJwk, newDpopKey, publicJwkOf, thumbprintOf } from "./dpop_key.ts";
import { type DebuggerSession, openSession, sealSession } from "./session.ts";
import { newSessionKey } from "./session_key.ts";

Deno.test("a run's DPoP key: a P-256 private JWK whose public half and thumbprint are shown", async () => {
  const key = await newDpopKey();
  assert.ok(isDpopPrivateJwk(key));
  assert.deepEqual(Object.keys(key).sort(), ["crv", "d", "kty", "x", "y"]);
  const pub = publicJwkOf(key);
  assert.deepEqual(Object.keys(pub).sort(), ["crv", "kty", "x", "y"]);
  assert.equal(await thumbprintOf(key), await calculateJwkThumbprint(pub as JWK, "sha256"));
  // Two runs, two keys.
  assert.notEqual((await newDpopKey()).d, key.d);
});

Deno.test("isDpopPrivateJwk refuses anything but a P-256 private JWK", async () => {
  const key = await newDpopKey();
  for (
    const bad of [
      null,
      "key",
      { ...key, d: undefined },
      { ...key, crv: "P-384" },
      { ...key, kty: "RSA" },
      { ...key, x: key.x.slice(1) },
      { ...key, y: `${key.y}A` },
      { ...key, d: "+".repeat(43) },
    ]
  ) assert.equal(isDpopPrivateJwk(bad), false, JSON.stringify(bad));
});

Deno.test("dpopProof signs typ dpop+jwt with the public jwk, htm, htu, iat, nonce and ath", async () => {
  const key = await newDpopKey();
  const proof = await dpopProof(key, {
    method: "GET",
    url: "http://localhost:8080/default/userinfo",
    nowMs: 1_700_000_000_999,
    nonce: "n-1",
    accessToken: "token",
  });
  const header = decodeProtectedHeader(proof);
  assert.equal(header.typ, "dpop+jwt");
  assert.equal(header.alg, "ES256");
  assert.deepEqual(header.jwk, publicJwkOf(key));
  await compactVerify(proof, await importJWK(header.jwk as JWK, "ES256"));
  const claims = claimsOf(proof);
  assert.equal(claims.htm, "GET");
  assert.equal(claims.htu, "http://localhost:8080/default/userinfo");
  assert.equal(claims.iat, 1_700_000_000);
  assert.equal(claims.nonce, "n-1");
  // base64url(SHA-256("token"))
  assert.equal(claims.ath, "PEaenWxYddN6Q_NT1PiOYfz4EsZu7jRXRlpAsNpBU-A");
  assert.match(String(claims.jti), /^[\w-]{36}$/);
  const plain = claimsOf(
    await dpopProof(key, { method: "POST", url: "http://x/token", nowMs: 0 }),
  );
  assert.equal(plain.nonce, undefined);
  assert.equal(plain.ath, undefined);
  assert.notEqual(plain.jti, claims.jti);
});

Deno.test("the session keeps the DPoP key and the pushed request sealed, and checks their shape", async () => {
  const cookieKey = newSessionKey();
  const session: DebuggerSession = {
    issuerId: "default",
    clientId: "debugger",
    clientSecret: "someSecret",
    clientAuth: "client_secret_basic",
    scope: "openid",
    responseType: "code",
    responseMode: "query",
    state: "1234",
    nonce: "5678",
    redirectUri: "http://localhost:8080/default/debugger/callback",
    dpopKey: await newDpopKey(),
    dpopNonce: "n",
    pushed: { requestUri: "urn:x", attempts: [{ status: 400, error: "use_dpop_nonce" }] },
  };
  const sealed = await sealSession(session, cookieKey);
  // Encrypted: no member of the key shows in the cookie.
  for (const part of [session.dpopKey!.d, session.dpopKey!.x, '"d"']) {
    assert.ok(!sealed.includes(part), part);
  }
  assert.deepEqual(await openSession(sealed, cookieKey), session);
  for (
    const bad of [
      { ...session, dpopKey: { ...session.dpopKey, d: 1 } },
      { ...session, dpopNonce: 5 },
      { ...session, pushed: { requestUri: "urn:x" } },
      { ...session, pushed: { requestUri: "urn:x", attempts: [{ status: "201" }] } },
    ]
  ) {
    const value = await sealSession(bad as unknown as DebuggerSession, cookieKey);
    assert.equal(await openSession(value, cookieKey), undefined);
  }
});
