import assert from "node:assert/strict";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { encodeBase64 } from "@svc/shared/base64";
import { localInfo } from "@svc/shared/http";
import { createLogger } from "@svc/shared/log";
import { createMetrics } from "@svc/shared/metrics";
import { createApp, createAppState } from "../app.ts";
import { BASE, basic, claimsOf, harness } from "../protocol/_test_support.ts";
import { MAX_NONCE_CHALLENGES } from "../protocol/dpop_challenges.ts";

const T0 = Date.UTC(2030, 0, 1);
const TOKEN_URL = `${BASE}/default/token`;

/** The whole API listener (protocol, /_mock, capture) over a frozen clock. */
function app() {
  const at = { ms: T0 };
  const built = createApp({
    core: harness({}, { now: () => at.ms }).core,
    state: createAppState(createMetrics({ service: "mock-oidc" })),
    logger: createLogger({ write: () => {} }),
  });
  const call = async (path: string, init: RequestInit = {}) =>
    await built.api(new Request(`${BASE}${path}`, init), localInfo());
  const control = (method: string, path: string, body?: unknown) =>
    call(path, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const token = (client: string, dpop?: string) =>
    call("/default/token", {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: basic(client),
        ...(dpop ? { dpop } : {}),
      },
      body: new URLSearchParams({ grant_type: "client_credentials", scope: "api" }),
    });
  return { at, call, control, token };
}

interface Key {
  privateKey: CryptoKey;
  jwk: JWK;
  jkt: string;
}

async function newKey(): Promise<Key> {
  const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk = await exportJWK(publicKey);
  return { privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, "sha256") };
}

let jtis = 0;
async function proof(
  key: Key,
  o: { htm?: string; htu?: string; nonce?: string; accessToken?: string } = {},
): Promise<string> {
  const ath = o.accessToken === undefined ? undefined : encodeBase64(
    new Uint8Array(
      await crypto.subtle.digest("SHA-256", new TextEncoder().encode(o.accessToken)),
    ),
    { url: true },
  );
  return await new SignJWT({
    htm: o.htm ?? "POST",
    htu: o.htu ?? TOKEN_URL,
    iat: Math.floor(T0 / 1000),
    jti: `c-${++jtis}`,
    ...(o.nonce ? { nonce: o.nonce } : {}),
    ...(ath ? { ath } : {}),
  }).setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk: key.jwk }).sign(key.privateKey);
}

async function validation(res: Response): Promise<{ location: string; message: string }[]> {
  assert.equal(res.status, 422);
  const body = await res.json();
  return body.errors.map((e: { location: string; message: string }) => ({
    location: e.location,
    message: e.message,
  }));
}

Deno.test("mint with dpopJwk: cnf.jkt, tokenType DPoP, accepted at userinfo only with a proof", async () => {
  const { control, call } = app();
  const key = await newKey();
  const res = await control("POST", "/_mock/mint", { issuer: "default", dpopJwk: key.jwk });
  assert.equal(res.status, 200);
  const minted = await res.json();
  assert.equal(minted.tokenType, "DPoP");
  assert.equal(minted.jkt, key.jkt);
  assert.deepEqual(claimsOf(minted.token).cnf, { jkt: key.jkt });
  // A cnf among the claims gives way to the binding.
  const overridden = await (await control("POST", "/_mock/mint", {
    issuer: "default",
    dpopJwk: key.jwk,
    claims: { cnf: { jkt: "other" }, role: "x" },
  })).json();
  assert.deepEqual(overridden.claims.cnf, { jkt: key.jkt });
  assert.equal(overridden.claims.role, "x");

  const userinfo = `${BASE}/default/userinfo`;
  const asDpop = await call("/default/userinfo", {
    headers: {
      authorization: `DPoP ${minted.token}`,
      dpop: await proof(key, { htm: "GET", htu: userinfo, accessToken: minted.token }),
    },
  });
  assert.equal(asDpop.status, 200);
  assert.equal((await asDpop.json()).sub, minted.claims.sub);
  const asBearer = await call("/default/userinfo", {
    headers: { authorization: `Bearer ${minted.token}` },
  });
  assert.equal(asBearer.status, 401);
  assert.match(asBearer.headers.get("www-authenticate")!, /^DPoP error="invalid_token"/);
  await asBearer.body?.cancel();
  const other = await newKey();
  const otherKey = await call("/default/userinfo", {
    headers: {
      authorization: `DPoP ${minted.token}`,
      dpop: await proof(other, { htm: "GET", htu: userinfo, accessToken: minted.token }),
    },
  });
  assert.equal(otherKey.status, 401);
  await otherKey.body?.cancel();
});

Deno.test("mint refuses a dpopJwk that is private, symmetric, not a key, or on an id token", async () => {
  const { control } = app();
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const priv = await exportJWK(privateKey);
  const cases: [unknown, Record<string, unknown>, string][] = [
    [priv, {}, "must be a public key: private members d are refused"],
    [{ kty: "oct", k: "c2VjcmV0" }, {}, "must be a public key: private members k are refused"],
    [
      { kty: "RSA", n: "AQAB", e: "AQAB", p: "x", q: "y" },
      {},
      "must be a public key: private members p, q are refused",
    ],
    [{ crv: "P-256", x: "a", y: "b" }, {}, "kty must be EC, RSA or OKP"],
    [{ kty: "oct" }, {}, "kty must be EC, RSA or OKP"],
    ["jwk", {}, "expected object, got string"],
    [
      { ...(await newKey()).jwk },
      { kind: "id_token" },
      "binds access tokens only (kind access_token)",
    ],
  ];
  for (const [dpopJwk, extra, message] of cases) {
    const res = await control("POST", "/_mock/mint", { issuer: "default", dpopJwk, ...extra });
    assert.deepEqual(await validation(res), [{ location: "body.dpopJwk", message }], message);
  }
  const missing = await control("POST", "/_mock/mint", {
    issuer: "default",
    dpopJwk: { kty: "EC", crv: "P-256", x: "a" },
  });
  const [error] = await validation(missing);
  assert.equal(error.location, "body.dpopJwk");
  assert.match(error.message, /^not a usable public JWK: /);
});

Deno.test("a nonce challenge makes the next DPoP token request demand a nonce, once", async () => {
  const { control, token } = app();
  const key = await newKey();
  const added = await control("POST", "/_mock/dpop/nonce-challenge", { issuer: "default" });
  assert.equal(added.status, 200);
  assert.deepEqual(await added.json(), { issuer: "default", pending: 1 });
  // A request without a proof leaves the challenge waiting.
  assert.equal((await token("svc")).status, 200);
  const challenged = await token("svc", await proof(key));
  assert.equal(challenged.status, 400);
  const nonce = challenged.headers.get("dpop-nonce");
  assert.ok(nonce);
  assert.deepEqual(await challenged.json(), {
    error: "use_dpop_nonce",
    error_description: "DPoP proof needs the server's nonce (DPoP-Nonce)",
  });
  const retried = await token("svc", await proof(key, { nonce }));
  assert.equal(retried.status, 200);
  assert.equal((await retried.json()).token_type, "DPoP");
  // Used up: the next proof needs no nonce.
  const after = await token("svc", await proof(key));
  assert.equal(after.status, 200);
  await after.body?.cancel();
  assert.deepEqual(await (await control("GET", "/_mock/dpop/nonce-challenge")).json(), {
    count: 0,
    challenges: [],
  });
});

Deno.test("a client's nonce challenge applies to that client only; list, clear and reset", async () => {
  const { control, token } = app();
  const key = await newKey();
  await (await control("POST", "/_mock/dpop/nonce-challenge", {
    issuer: "default",
    clientId: "a",
  })).body?.cancel();
  const b = await token("b", await proof(key));
  assert.equal(b.status, 200);
  await b.body?.cancel();
  assert.deepEqual(await (await control("GET", "/_mock/dpop/nonce-challenge")).json(), {
    count: 1,
    challenges: [{ issuer: "default", clientId: "a" }],
  });
  const a = await token("a", await proof(key));
  assert.equal(a.status, 400);
  assert.equal((await a.json()).error, "use_dpop_nonce");

  await (await control("POST", "/_mock/dpop/nonce-challenge", { issuer: "other" })).body
    ?.cancel();
  const cleared = await control("DELETE", "/_mock/dpop/nonce-challenge");
  assert.deepEqual(await cleared.json(), { count: 0 });
  await (await control("POST", "/_mock/dpop/nonce-challenge", { issuer: "default" })).body
    ?.cancel();
  await (await control("POST", "/_mock/reset")).body?.cancel();
  const afterReset = await token("a", await proof(key));
  assert.equal(afterReset.status, 200);
  await afterReset.body?.cancel();
});

Deno.test(`at most ${MAX_NONCE_CHALLENGES} nonce challenges wait; the same one again is no new one`, async () => {
  const { control } = app();
  const add = (clientId: string) =>
    control("POST", "/_mock/dpop/nonce-challenge", { issuer: "default", clientId });
  for (let i = 1; i < MAX_NONCE_CHALLENGES; i++) await (await add(`c${i}`)).body?.cancel();
  const below = await (await control("GET", "/_mock/dpop/nonce-challenge")).json();
  assert.equal(below.count, MAX_NONCE_CHALLENGES - 1);
  const at = await add(`c${MAX_NONCE_CHALLENGES}`);
  assert.equal(at.status, 200);
  assert.equal((await at.json()).pending, MAX_NONCE_CHALLENGES);
  const again = await add("c1");
  assert.equal(again.status, 200);
  assert.equal((await again.json()).pending, MAX_NONCE_CHALLENGES);
  const over = await add("one-more");
  assert.equal(over.status, 409);
  const problem = await over.json();
  assert.equal(problem.title, "Conflict");
  assert.equal(
    problem.detail,
    `at most ${MAX_NONCE_CHALLENGES} nonce challenges wait; ` +
      "DELETE /_mock/dpop/nonce-challenge or reset first",
  );
});

Deno.test("a nonce challenge body is checked", async () => {
  const { control } = app();
  const post = (body: unknown) => control("POST", "/_mock/dpop/nonce-challenge", body);
  assert.deepEqual(await validation(await post({})), [
    { location: "body.issuer", message: "required property is missing" },
  ]);
  assert.deepEqual(await validation(await post({ issuer: "default", clientId: "" })), [
    { location: "body.clientId", message: "must not be empty" },
  ]);
  assert.deepEqual(await validation(await post({ issuer: "default", client: "a" })), [
    { location: "body.client", message: "unknown property" },
  ]);
  const reserved = await validation(await post({ issuer: "_mock" }));
  assert.equal(reserved[0].location, "body.issuer");
});

Deno.test("captured token, userinfo and introspect requests show the proof's jkt and whether it verified", async () => {
  const { control, token, call } = app();
  const key = await newKey();
  const good = await token("svc", await proof(key));
  const { access_token: accessToken } = await good.json();
  (await token("svc", await proof(key, { htm: "GET" }))).body?.cancel();
  (await token("svc", "not-a-jws")).body?.cancel();
  (await token("svc")).body?.cancel();
  await (await call("/default/userinfo", {
    headers: {
      authorization: `DPoP ${accessToken}`,
      dpop: await proof(key, {
        htm: "GET",
        htu: `${BASE}/default/userinfo`,
        accessToken,
      }),
    },
  })).body?.cancel();
  const tokens = (await (await control("GET", "/_mock/requests?endpoint=token")).json()).requests;
  assert.deepEqual(tokens.map((r: { dpop?: unknown }) => r.dpop), [
    { jkt: key.jkt, verified: true },
    { jkt: key.jkt, verified: false, error: "invalid_dpop_proof" },
    { verified: false, error: "invalid_dpop_proof" },
    undefined,
  ]);
  const userinfo = (await (await control("GET", "/_mock/requests?endpoint=userinfo")).json())
    .requests;
  assert.deepEqual(userinfo[0].dpop, { jkt: key.jkt, verified: true });
  const introspected = await call("/default/introspect", {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      authorization: basic("svc"),
      dpop: await proof(key, { htu: `${BASE}/default/introspect`, accessToken }),
    },
    body: new URLSearchParams({ token: accessToken }),
  });
  assert.equal(introspected.status, 200);
  assert.equal((await introspected.json()).token_type, "DPoP");
  const introspect = (await (await control("GET", "/_mock/requests?endpoint=introspect")).json())
    .requests;
  assert.deepEqual(introspect[0].dpop, { jkt: key.jkt, verified: true });

  // A nonce refusal names its code.
  await (await control("POST", "/_mock/dpop/nonce-challenge", { issuer: "default" })).body
    ?.cancel();
  (await token("svc", await proof(key))).body?.cancel();
  const last = (await (await control("GET", "/_mock/requests?endpoint=token")).json()).requests
    .at(-1);
  assert.deepEqual(last.dpop, { jkt: key.jkt, verified: false, error: "use_dpop_nonce" });
});
