import assert from "node:assert/strict";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { encodeBase64 } from "@svc/shared/base64";
import { BASE, basic, claimsOf, harness } from "./_test_support.ts";
import { BoundedMap } from "./bounded_map.ts";
import { normaliseHtu } from "./dpop.ts";
import {
  DPOP_ALGORITHMS,
  DPOP_NONCE_LIFETIME_S,
  DPOP_NONCE_ROTATE_S,
  DPOP_PROOF_WINDOW_S,
} from "./dpop_rules.ts";

const ISSUER = `${BASE}/default`;
const TOKEN_URL = `${ISSUER}/token`;
const USERINFO_URL = `${ISSUER}/userinfo`;
const T0 = Date.UTC(2030, 0, 1);
const REDIRECT = "http://rp.test/cb";

type H = ReturnType<typeof harness>;

function setup(dpopNonceIssuers?: string[]) {
  const at = { ms: T0 };
  const h = harness({}, { now: () => at.ms, dpopNonceIssuers });
  return { h, at };
}

interface Key {
  privateKey: CryptoKey;
  jwk: JWK;
  jkt: string;
}

async function newKey(alg = "ES256"): Promise<Key> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(publicKey);
  return { privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, "sha256") };
}

let jtis = 0;
interface ProofOptions {
  htm?: string;
  htu?: string;
  iat?: number;
  accessToken?: string;
  nonce?: string;
  claims?: Record<string, unknown>;
  header?: Record<string, unknown>;
  without?: string[];
  alg?: string;
  /** Sign with this key instead of the one named in the header. */
  signWith?: CryptoKey;
}

async function proof(key: Key, nowMs: number, o: ProofOptions = {}): Promise<string> {
  const claims: Record<string, unknown> = {
    htm: o.htm ?? "POST",
    htu: o.htu ?? TOKEN_URL,
    iat: o.iat ?? Math.floor(nowMs / 1000),
    jti: `p-${++jtis}`,
    ...(o.accessToken ? { ath: await sha256(o.accessToken) } : {}),
    ...(o.nonce ? { nonce: o.nonce } : {}),
    ...o.claims,
  };
  for (const c of o.without ?? []) delete claims[c];
  return await new SignJWT(claims)
    .setProtectedHeader({ alg: o.alg ?? "ES256", typ: "dpop+jwt", jwk: key.jwk, ...o.header })
    .sign(o.signWith ?? key.privateKey);
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return encodeBase64(new Uint8Array(digest), { url: true });
}

function clientCredentials(h: H, dpop?: string, issuer = "default") {
  return h.form(`/${issuer}/token`, { grant_type: "client_credentials", scope: "api" }, {
    authorization: basic("svc"),
    ...(dpop ? { dpop } : {}),
  });
}

async function refusedAtToken(res: Response, error: string, description: string) {
  assert.equal(res.status, 400);
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.deepEqual(await res.json(), { error, error_description: description });
}

function userinfo(h: H, authorization: string, dpop?: string) {
  return h.call("/default/userinfo", {
    headers: { authorization, ...(dpop ? { dpop } : {}) },
  });
}

async function refusedAtUserinfo(res: Response, error: string, description: string) {
  assert.equal(res.status, 401);
  assert.equal(
    res.headers.get("www-authenticate"),
    `DPoP error="${error}", error_description="${description}", algs="${
      DPOP_ALGORITHMS.join(" ")
    }"`,
  );
  assert.deepEqual(await res.json(), { error, error_description: description });
}

Deno.test("discovery lists dpop_signing_alg_values_supported", async () => {
  const { h } = setup();
  const doc = await (await h.call("/default/.well-known/openid-configuration")).json();
  assert.deepEqual(doc.dpop_signing_alg_values_supported, [...DPOP_ALGORITHMS]);
});

Deno.test("a DPoP-bound token: token_type DPoP, cnf.jkt, introspection, userinfo", async (t) => {
  const { h, at } = setup();
  const key = await newKey();
  const res = await clientCredentials(h, await proof(key, at.ms));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("dpop-nonce"), null, "no nonce unless the issuer demands one");
  const body = await res.json();
  assert.equal(body.token_type, "DPoP");
  const token = body.access_token as string;
  assert.deepEqual(claimsOf(token).cnf, { jkt: key.jkt });

  await t.step("introspection says DPoP and names the key", async () => {
    const info = await (await h.form("/default/introspect", { token }, {
      authorization: basic("rs"),
    })).json();
    assert.equal(info.active, true);
    assert.equal(info.token_type, "DPoP");
    assert.deepEqual(info.cnf, { jkt: key.jkt });
  });
  await t.step("userinfo with Authorization: DPoP and a proof with ath", async () => {
    const ok = await userinfo(
      h,
      `DPoP ${token}`,
      await proof(key, at.ms, { htm: "GET", htu: USERINFO_URL, accessToken: token }),
    );
    assert.equal(ok.status, 200);
    assert.equal((await ok.json()).sub, "svc");
  });
  await t.step("the bound token as Bearer is refused with a DPoP challenge", async () => {
    await refusedAtUserinfo(
      await userinfo(h, `Bearer ${token}`),
      "invalid_token",
      "the access token is DPoP-bound: present it with Authorization: DPoP and a proof",
    );
  });
  await t.step("a proof of another key", async () => {
    const other = await newKey();
    await refusedAtUserinfo(
      await userinfo(
        h,
        `DPoP ${token}`,
        await proof(other, at.ms, { htm: "GET", htu: USERINFO_URL, accessToken: token }),
      ),
      "invalid_dpop_proof",
      "the DPoP proof's key is not the key the access token is bound to",
    );
  });
  await t.step("the DPoP scheme without a proof, with a wrong ath, without ath", async () => {
    await refusedAtUserinfo(
      await userinfo(h, `DPoP ${token}`),
      "invalid_dpop_proof",
      "the DPoP scheme needs a DPoP proof header",
    );
    await refusedAtUserinfo(
      await userinfo(
        h,
        `DPoP ${token}`,
        await proof(key, at.ms, { htm: "GET", htu: USERINFO_URL, accessToken: "other" }),
      ),
      "invalid_dpop_proof",
      "DPoP proof ath does not match the access token",
    );
    await refusedAtUserinfo(
      await userinfo(
        h,
        `DPoP ${token}`,
        await proof(key, at.ms, { htm: "GET", htu: USERINFO_URL }),
      ),
      "invalid_dpop_proof",
      "DPoP proof ath does not match the access token",
    );
  });
  await t.step("a plain token with the DPoP scheme is not bound to the proof", async () => {
    const plain = (await (await clientCredentials(h)).json()).access_token as string;
    assert.equal(claimsOf(plain).cnf, undefined);
    await refusedAtUserinfo(
      await userinfo(
        h,
        `DPoP ${plain}`,
        await proof(key, at.ms, { htm: "GET", htu: USERINFO_URL, accessToken: plain }),
      ),
      "invalid_dpop_proof",
      "the DPoP proof's key is not the key the access token is bound to",
    );
    // and as Bearer it works as before
    assert.equal((await userinfo(h, `Bearer ${plain}`)).status, 200);
  });
});

Deno.test("each proof check at the token endpoint, with its error text", async (t) => {
  const { h, at } = setup();
  const key = await newKey();
  const other = await newKey();
  const refuse = async (dpop: string, description: string) =>
    await refusedAtToken(await clientCredentials(h, dpop), "invalid_dpop_proof", description);
  await t.step("not one compact JWS", async () => {
    await refuse("x", "DPoP proof must be one compact JWS");
    const one = await proof(key, at.ms);
    await refuse(`${one}, ${one}`, "DPoP proof must be one compact JWS");
  });
  await t.step("typ", async () => {
    await refuse(
      await proof(key, at.ms, { header: { typ: "JWT" } }),
      "DPoP proof typ must be dpop+jwt",
    );
  });
  await t.step("alg outside the list", async () => {
    const hmac = await new SignJWT({ htm: "POST", htu: TOKEN_URL, iat: T0 / 1000, jti: "h" })
      .setProtectedHeader({ alg: "HS256", typ: "dpop+jwt", jwk: key.jwk })
      .sign(new Uint8Array(32));
    await refuse(hmac, `DPoP proof alg must be one of ${DPOP_ALGORITHMS.join(", ")}`);
  });
  await t.step("jwk missing, private", async () => {
    await refuse(
      await proof(key, at.ms, { header: { jwk: undefined } }),
      "DPoP proof has no jwk header",
    );
    const privateJwk = await exportJWK(key.privateKey);
    await refuse(
      await proof(key, at.ms, { header: { jwk: privateJwk } }),
      "DPoP proof jwk must be a public key without private members",
    );
  });
  await t.step("signed with another key than its jwk", async () => {
    await refuse(
      await proof(key, at.ms, { signWith: other.privateKey }),
      "DPoP proof signature does not verify with its jwk",
    );
  });
  await t.step("jti, htm, htu, iat missing or wrong", async () => {
    await refuse(await proof(key, at.ms, { without: ["jti"] }), "DPoP proof has no jti");
    await refuse(await proof(key, at.ms, { htm: "GET" }), "DPoP proof htm must be POST");
    await refuse(
      await proof(key, at.ms, { htu: `${BASE}/other/token` }),
      `DPoP proof htu must be ${TOKEN_URL}`,
    );
    await refuse(await proof(key, at.ms, { htu: "token" }), `DPoP proof htu must be ${TOKEN_URL}`);
    await refuse(await proof(key, at.ms, { without: ["iat"] }), "DPoP proof has no iat");
  });
  await t.step("htu compared without query or fragment, normalised (RFC 3986 §6.2.2)", async () => {
    for (
      const htu of [
        `${TOKEN_URL}?a=b#c`,
        "HTTP://LOCALHOST:8080/default/token",
        "http://localhost:8080/default/%74oken",
        "http://localhost:8080/x/../default/token",
      ]
    ) {
      assert.equal((await clientCredentials(h, await proof(key, at.ms, { htu }))).status, 200, htu);
    }
  });
  await t.step("a replayed proof", async () => {
    const once = await proof(key, at.ms);
    assert.equal((await clientCredentials(h, once)).status, 200);
    await refuse(once, "DPoP proof jti has been used before");
  });
});

Deno.test("normaliseHtu: case, default port, dot segments, percent-encoding", () => {
  assert.equal(
    normaliseHtu("HTTPS://Example.COM:443/a/./b/%7e/%2f?q#f"),
    "https://example.com/a/b/~/%2F",
  );
  assert.equal(normaliseHtu("http://h:8080/a%2fb"), "http://h:8080/a%2Fb");
  // what is not a URL matches no URL
  assert.notEqual(normaliseHtu("/default/token"), normaliseHtu(TOKEN_URL));
  assert.equal(normaliseHtu("/default/token").startsWith("http"), false);
});

Deno.test("proof age: iat 60 s behind or ahead at, below and above", async () => {
  assert.equal(DPOP_PROOF_WINDOW_S, 60);
  const { h, at } = setup();
  const key = await newKey();
  const now = T0 / 1000;
  const send = async (iat: number) => await clientCredentials(h, await proof(key, at.ms, { iat }));
  for (const iat of [now - 59, now - 60, now + 59, now + 60]) {
    assert.equal((await send(iat)).status, 200, String(iat - now));
  }
  await refusedAtToken(
    await send(now - 61),
    "invalid_dpop_proof",
    "DPoP proof iat is more than 60s old",
  );
  await refusedAtToken(
    await send(now + 61),
    "invalid_dpop_proof",
    "DPoP proof iat is more than 60s in the future",
  );
});

Deno.test("replay window: a proof is remembered while its iat is accepted", async () => {
  const { h, at } = setup();
  const key = await newKey();
  const once = await proof(key, at.ms);
  assert.equal((await clientCredentials(h, once)).status, 200);
  at.ms = T0 + (DPOP_PROOF_WINDOW_S - 1) * 1000;
  await refusedAtToken(
    await clientCredentials(h, once),
    "invalid_dpop_proof",
    "DPoP proof jti has been used before",
  );
  at.ms = T0 + DPOP_PROOF_WINDOW_S * 1000;
  await refusedAtToken(
    await clientCredentials(h, once),
    "invalid_dpop_proof",
    "DPoP proof jti has been used before",
  );
  at.ms = T0 + (DPOP_PROOF_WINDOW_S + 1) * 1000;
  await refusedAtToken(
    await clientCredentials(h, once),
    "invalid_dpop_proof",
    "DPoP proof iat is more than 60s old",
  );
  // the same jti with the same key in a fresh proof, after the window: accepted
  const again = await proof(key, at.ms, { claims: { jti: claimsOf(once).jti } });
  assert.equal((await clientCredentials(h, again)).status, 200);
});

Deno.test("the proof replay cache is bounded: the oldest goes first", async () => {
  const { h, at } = setup();
  const key = await newKey();
  h.core.protocol.state.dpopJtis = new BoundedMap(2);
  const [a, b, c] = await Promise.all([1, 2, 3].map(() => proof(key, at.ms)));
  const used = "DPoP proof jti has been used before";
  assert.equal((await clientCredentials(h, a)).status, 200);
  assert.equal((await clientCredentials(h, b)).status, 200);
  await refusedAtToken(await clientCredentials(h, a), "invalid_dpop_proof", used);
  await refusedAtToken(await clientCredentials(h, b), "invalid_dpop_proof", used);
  assert.equal((await clientCredentials(h, c)).status, 200);
  await refusedAtToken(await clientCredentials(h, b), "invalid_dpop_proof", used);
  assert.equal((await clientCredentials(h, a)).status, 200, "above the bound the oldest is gone");
});

Deno.test("server nonces: use_dpop_nonce with DPoP-Nonce, then accepted", async () => {
  const { h, at } = setup(["default"]);
  const key = await newKey();
  const first = await clientCredentials(h, await proof(key, at.ms));
  const nonce = first.headers.get("dpop-nonce");
  assert.ok(nonce);
  await refusedAtToken(first, "use_dpop_nonce", "DPoP proof needs the server's nonce (DPoP-Nonce)");
  const ok = await clientCredentials(h, await proof(key, at.ms, { nonce }));
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get("dpop-nonce"), nonce, "the current nonce rides along");
  const forged = await clientCredentials(h, await proof(key, at.ms, { nonce: "made-up" }));
  assert.equal(forged.headers.get("dpop-nonce"), nonce);
  await refusedAtToken(forged, "use_dpop_nonce", "DPoP proof nonce is not current");
  // another issuer demands none; its nonce is not this one's
  assert.equal(
    (await clientCredentials(h, await proof(key, at.ms, { htu: `${BASE}/other/token` }), "other"))
      .status,
    200,
  );
  // plain Bearer requests are untouched
  assert.equal((await clientCredentials(h)).status, 200);
});

Deno.test("server nonces on every issuer with *, and at userinfo", async () => {
  const { h, at } = setup(["*"]);
  const key = await newKey();
  const otherUrl = `${BASE}/other/token`;
  const first = await clientCredentials(h, await proof(key, at.ms, { htu: otherUrl }), "other");
  assert.equal(first.status, 400);
  const otherNonce = first.headers.get("dpop-nonce")!;
  const res = await clientCredentials(
    h,
    await proof(key, at.ms, { htu: otherUrl, nonce: otherNonce }),
    "other",
  );
  assert.equal(res.status, 200);
  // a nonce of issuer "other" is not current at "default"
  const atDefault = await clientCredentials(h, await proof(key, at.ms, { nonce: otherNonce }));
  await refusedAtToken(atDefault.clone(), "use_dpop_nonce", "DPoP proof nonce is not current");
  const nonce = atDefault.headers.get("dpop-nonce")!;
  const token = (await (await clientCredentials(h, await proof(key, at.ms, { nonce }))).json())
    .access_token as string;
  const noNonce = await userinfo(
    h,
    `DPoP ${token}`,
    await proof(key, at.ms, { htm: "GET", htu: USERINFO_URL, accessToken: token }),
  );
  assert.equal(noNonce.headers.get("dpop-nonce"), nonce);
  await refusedAtUserinfo(
    noNonce,
    "use_dpop_nonce",
    "DPoP proof needs the server's nonce (DPoP-Nonce)",
  );
  const ok = await userinfo(
    h,
    `DPoP ${token}`,
    await proof(key, at.ms, { htm: "GET", htu: USERINFO_URL, accessToken: token, nonce }),
  );
  assert.equal(ok.status, 200);
});

Deno.test("nonce lifetime 300 s and rotation at 150 s: at, below and above", async () => {
  assert.equal(DPOP_NONCE_LIFETIME_S, 300);
  assert.equal(DPOP_NONCE_ROTATE_S, 150);
  const { h, at } = setup(["default"]);
  const key = await newKey();
  const nonceNow = async () =>
    (await clientCredentials(h, await proof(key, at.ms))).headers.get("dpop-nonce")!;
  const n0 = await nonceNow();
  at.ms = T0 + (DPOP_NONCE_ROTATE_S - 1) * 1000;
  assert.equal(await nonceNow(), n0, "below the rotation: the same nonce");
  at.ms = T0 + DPOP_NONCE_ROTATE_S * 1000;
  const n1 = await nonceNow();
  assert.notEqual(n1, n0, "at the rotation: a new nonce");
  at.ms = T0 + (DPOP_NONCE_ROTATE_S + 1) * 1000;
  assert.equal(await nonceNow(), n1);
  const withNonce = async (nonce: string) =>
    await clientCredentials(h, await proof(key, at.ms, { nonce }));
  at.ms = T0 + (DPOP_NONCE_LIFETIME_S - 1) * 1000;
  assert.equal((await withNonce(n0)).status, 200, "below the lifetime: accepted");
  at.ms = T0 + DPOP_NONCE_LIFETIME_S * 1000;
  await refusedAtToken(await withNonce(n0), "use_dpop_nonce", "DPoP proof nonce is not current");
  at.ms = T0 + (DPOP_NONCE_LIFETIME_S + 1) * 1000;
  await refusedAtToken(await withNonce(n0), "use_dpop_nonce", "DPoP proof nonce is not current");
  assert.equal((await withNonce(n1)).status, 200, "the newer nonce still lives");
});

async function codeFor(h: H, clientId: string): Promise<string> {
  const query = new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: "code",
    scope: "openid offline_access",
  });
  const res = await h.call(`/default/authorize?${query}`);
  assert.equal(res.status, 302);
  return new URL(res.headers.get("location")!).searchParams.get("code")!;
}

Deno.test("a public client's refresh token is bound to its DPoP key", async () => {
  const { h, at } = setup();
  const key = await newKey();
  const code = await codeFor(h, "spa");
  const res = await h.form("/default/token", {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    client_id: "spa",
  }, { dpop: await proof(key, at.ms) });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.token_type, "DPoP");
  assert.equal(claimsOf(body.id_token).cnf, undefined, "the id token is not bound");
  const refresh = (dpop?: string) =>
    h.form("/default/token", {
      grant_type: "refresh_token",
      refresh_token: body.refresh_token,
      client_id: "spa",
    }, dpop ? { dpop } : {});
  await refusedAtToken(
    await refresh(),
    "invalid_grant",
    "refresh_token is DPoP-bound: a DPoP proof is required",
  );
  await refusedAtToken(
    await refresh(await proof(await newKey(), at.ms)),
    "invalid_grant",
    "refresh_token is bound to another DPoP key",
  );
  const ok = await refresh(await proof(key, at.ms));
  assert.equal(ok.status, 200);
  const refreshed = await ok.json();
  assert.equal(refreshed.token_type, "DPoP");
  assert.deepEqual(claimsOf(refreshed.access_token).cnf, { jkt: key.jkt });
});

Deno.test("a confidential client's refresh token is not bound", async () => {
  const { h, at } = setup();
  const key = await newKey();
  const code = await codeFor(h, "web");
  const body = await (await h.form("/default/token", {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
  }, { authorization: basic("web"), dpop: await proof(key, at.ms) })).json();
  assert.equal(body.token_type, "DPoP");
  const res = await h.form("/default/token", {
    grant_type: "refresh_token",
    refresh_token: body.refresh_token,
  }, { authorization: basic("web") });
  assert.equal(res.status, 200);
  assert.equal((await res.json()).token_type, "Bearer");
});

Deno.test("registration: dpop_bound_access_tokens demands a proof", async () => {
  const { h, at } = setup();
  const register = (body: unknown) =>
    h.call("/default/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const bad = await register({
    grant_types: ["client_credentials"],
    dpop_bound_access_tokens: "yes",
  });
  assert.equal(bad.status, 400);
  assert.deepEqual(await bad.json(), {
    error: "invalid_client_metadata",
    error_description: "dpop_bound_access_tokens must be a boolean",
  });
  const created = await register({
    grant_types: ["client_credentials"],
    dpop_bound_access_tokens: true,
  });
  assert.equal(created.status, 201);
  const { client_id: id, client_secret: secret, dpop_bound_access_tokens } = await created.json();
  assert.equal(dpop_bound_access_tokens, true);
  const send = (dpop?: string) =>
    h.form("/default/token", { grant_type: "client_credentials" }, {
      authorization: basic(id, secret),
      ...(dpop ? { dpop } : {}),
    });
  await refusedAtToken(
    await send(),
    "invalid_dpop_proof",
    `client ${id} registered dpop_bound_access_tokens: a DPoP proof is required`,
  );
  const ok = await send(await proof(await newKey(), at.ms));
  assert.equal(ok.status, 200);
  assert.equal((await ok.json()).token_type, "DPoP");
});

Deno.test("introspection with a DPoP proof: checked, active only for the bound key", async () => {
  const { h, at } = setup();
  const key = await newKey();
  const token = (await (await clientCredentials(h, await proof(key, at.ms))).json())
    .access_token as string;
  const introspectUrl = `${ISSUER}/introspect`;
  const introspect = (dpop?: string, t = token) =>
    h.form("/default/introspect", { token: t }, {
      authorization: basic("rs"),
      ...(dpop ? { dpop } : {}),
    });
  const withProof = async (k: Key, t = token) =>
    await introspect(await proof(k, at.ms, { htu: introspectUrl, accessToken: t }), t);
  const same = await (await withProof(key)).json();
  assert.equal(same.active, true);
  assert.equal(same.token_type, "DPoP");
  assert.deepEqual(await (await withProof(await newKey())).json(), { active: false });
  const plain = (await (await clientCredentials(h)).json()).access_token as string;
  assert.deepEqual(await (await withProof(key, plain)).json(), { active: false });
  await refusedAtToken(
    await introspect(await proof(key, at.ms, { htu: introspectUrl, accessToken: "other" })),
    "invalid_dpop_proof",
    "DPoP proof ath does not match the access token",
  );
  await refusedAtToken(
    await introspect(await proof(key, at.ms, { accessToken: token })),
    "invalid_dpop_proof",
    `DPoP proof htu must be ${introspectUrl}`,
  );
  // without a proof: as before, the binding reported
  assert.equal((await (await introspect()).json()).active, true);
});

Deno.test("dpop_jkt (RFC 9449 §10): a proof at PAR, or the parameter, binds the code", async (t) => {
  const { h, at } = setup();
  const key = await newKey();
  const parUrl = `${ISSUER}/par`;
  const push = async (dpop?: string, extra: Record<string, string> = {}) =>
    await h.form("/default/par", {
      response_type: "code",
      redirect_uri: REDIRECT,
      scope: "openid",
      ...extra,
    }, { authorization: basic("web"), ...(dpop ? { dpop } : {}) });
  const codeOf = async (query: Record<string, string>) => {
    const res = await h.call(`/default/authorize?${new URLSearchParams(query)}`);
    assert.equal(res.status, 302);
    return new URL(res.headers.get("location")!).searchParams.get("code")!;
  };
  const redeem = (code: string, dpop?: string) =>
    h.form("/default/token", { grant_type: "authorization_code", code, redirect_uri: REDIRECT }, {
      authorization: basic("web"),
      ...(dpop ? { dpop } : {}),
    });
  const pushedCode = async () => {
    const res = await push(await proof(key, at.ms, { htu: parUrl }));
    assert.equal(res.status, 201);
    const { request_uri } = await res.json();
    assert.equal(
      h.core.protocol.state.pushedRequests.get(request_uri)!.params.get("dpop_jkt"),
      key.jkt,
    );
    return await codeOf({ client_id: "web", request_uri });
  };
  await t.step("redeemed with the same key", async () => {
    const res = await redeem(await pushedCode(), await proof(key, at.ms));
    assert.equal(res.status, 200);
    assert.equal((await res.json()).token_type, "DPoP");
  });
  await t.step("without a proof, with another key", async () => {
    await refusedAtToken(
      await redeem(await pushedCode()),
      "invalid_grant",
      "the code is bound to a DPoP key (dpop_jkt): a DPoP proof is required",
    );
    await refusedAtToken(
      await redeem(await pushedCode(), await proof(await newKey(), at.ms)),
      "invalid_grant",
      "the code is bound to another DPoP key (dpop_jkt)",
    );
  });
  await t.step("a dpop_jkt that is not the proof's key; a bad proof at PAR", async () => {
    await refusedAtToken(
      await push(await proof(key, at.ms, { htu: parUrl }), { dpop_jkt: "other" }),
      "invalid_dpop_proof",
      "dpop_jkt is not the DPoP proof's key",
    );
    await refusedAtToken(
      await push(await proof(key, at.ms)),
      "invalid_dpop_proof",
      `DPoP proof htu must be ${parUrl}`,
    );
  });
  await t.step("dpop_jkt as a parameter of authorize", async () => {
    const code = await codeOf({
      client_id: "web",
      redirect_uri: REDIRECT,
      response_type: "code",
      dpop_jkt: key.jkt,
    });
    await refusedAtToken(
      await redeem(code, await proof(await newKey(), at.ms)),
      "invalid_grant",
      "the code is bound to another DPoP key (dpop_jkt)",
    );
  });
});
