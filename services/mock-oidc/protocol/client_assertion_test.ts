import assert from "node:assert/strict";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { BASE, claimsOf, harness } from "./_test_support.ts";
import { ASSERTION_SKEW_S, JWKS_DEFAULT_CACHE_S } from "./client_assertion.ts";
import { BoundedMap } from "./bounded_map.ts";
import { MAX_DOCUMENT_BYTES } from "./metadata_document.ts";

const ISSUER = `${BASE}/default`;
const TOKEN_URL = `${ISSUER}/token`;
const T0 = Date.UTC(2030, 0, 1);
const ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

type H = ReturnType<typeof harness>;

/** A harness on a clock the test moves (`at.ms`), with a fake outbound fetch. */
function setup(fetch?: typeof globalThis.fetch) {
  const at = { ms: T0 };
  const h = harness({}, { now: () => at.ms, fetch });
  return { h, at };
}

async function register(h: H, body: Record<string, unknown>) {
  const res = await h.call("/default/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ grant_types: ["client_credentials"], ...body }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  return await res.json() as { client_id: string; client_secret?: string };
}

async function keyPair(alg = "ES256", kid = "k1") {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey, jwk: { ...await exportJWK(publicKey), kid, alg } };
}

interface Sign {
  key: CryptoKey | Uint8Array;
  alg?: string;
  kid?: string;
  claims?: Record<string, unknown>;
  /** Remove these claims. */
  without?: string[];
}

let jtis = 0;
async function assertion(clientId: string, nowMs: number, s: Sign): Promise<string> {
  const now = Math.floor(nowMs / 1000);
  const claims: Record<string, unknown> = {
    iss: clientId,
    sub: clientId,
    aud: ISSUER,
    exp: now + 60,
    iat: now,
    jti: `jti-${++jtis}`,
    ...s.claims,
  };
  for (const c of s.without ?? []) delete claims[c];
  return await new SignJWT(claims)
    .setProtectedHeader({ alg: s.alg ?? "ES256", ...(s.kid ? { kid: s.kid } : {}) })
    .sign(s.key);
}

function tokenRequest(h: H, clientAssertion: string, extra: Record<string, string> = {}) {
  return h.form("/default/token", {
    grant_type: "client_credentials",
    client_assertion_type: ASSERTION_TYPE,
    client_assertion: clientAssertion,
    ...extra,
  });
}

async function refused(res: Response, description: string) {
  assert.equal(res.status, 401);
  assert.deepEqual(await res.json(), { error: "invalid_client", error_description: description });
}

async function granted(res: Response, clientId: string) {
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal(claimsOf((await res.json()).access_token).sub, clientId);
}

Deno.test("discovery advertises both signed methods and their algorithms", async () => {
  const { h } = setup();
  const doc = await (await h.call("/default/.well-known/openid-configuration")).json();
  for (const m of ["client_secret_jwt", "private_key_jwt"]) {
    assert.ok(doc.token_endpoint_auth_methods_supported.includes(m), m);
  }
  for (const a of ["RS256", "PS256", "ES256", "ES512", "EdDSA", "HS256", "HS512"]) {
    assert.ok(doc.token_endpoint_auth_signing_alg_values_supported.includes(a), a);
  }
});

Deno.test("private_key_jwt against registered jwks: accepted, each check refused with its text", async (t) => {
  const { h, at } = setup();
  const { privateKey, jwk } = await keyPair();
  const other = await keyPair();
  const { client_id: id } = await register(h, {
    token_endpoint_auth_method: "private_key_jwt",
    jwks: { keys: [jwk] },
  });
  const sign = (s: Partial<Sign> = {}) => assertion(id, at.ms, { key: privateKey, ...s });

  await t.step("a good assertion, aud the issuer or the token endpoint", async () => {
    await granted(await tokenRequest(h, await sign()), id);
    await granted(await tokenRequest(h, await sign({ claims: { aud: TOKEN_URL } })), id);
    await granted(await tokenRequest(h, await sign({ kid: "k1" })), id);
  });
  await t.step("signed with another key", async () => {
    await refused(
      await tokenRequest(h, await sign({ key: other.privateKey })),
      "client_assertion signature does not verify",
    );
  });
  await t.step("a kid the client did not register", async () => {
    await refused(
      await tokenRequest(h, await sign({ kid: "nope" })),
      "client_assertion signature does not verify",
    );
  });
  await t.step("wrong aud", async () => {
    await refused(
      await tokenRequest(h, await sign({ claims: { aud: `${BASE}/other` } })),
      "client_assertion aud must be the issuer or the token endpoint URL",
    );
  });
  await t.step("wrong iss, wrong sub", async () => {
    await refused(
      await tokenRequest(h, await sign({ claims: { iss: "someone-else" } })),
      "client_assertion must have iss equal to sub (the client id)",
    );
    await refused(
      await tokenRequest(h, await sign({ claims: { iss: "x", sub: "x" } }), { client_id: id }),
      "client_assertion sub differs from client_id",
    );
  });
  await t.step("no exp, no jti", async () => {
    await refused(
      await tokenRequest(h, await sign({ without: ["exp"] })),
      "client_assertion has no exp",
    );
    await refused(
      await tokenRequest(h, await sign({ without: ["jti"] })),
      "client_assertion has no jti",
    );
  });
  await t.step("a replayed jti", async () => {
    const once = await sign();
    await granted(await tokenRequest(h, once), id);
    await refused(await tokenRequest(h, once), "client_assertion jti has been used before");
  });
  await t.step("an alg outside the list (none)", async () => {
    const [, body] = (await sign()).split(".");
    const unsigned = `${btoa(JSON.stringify({ alg: "none" })).replace(/=+$/, "")}.${body}.`;
    await refused(
      await tokenRequest(h, unsigned),
      "client_assertion alg must be one of RS256, RS384, RS512, PS256, PS384, PS512, ES256, " +
        "ES384, ES512, EdDSA, Ed25519",
    );
  });
  await t.step("an HMAC assertion for a private_key_jwt client is the wrong method", async () => {
    await refused(
      await tokenRequest(
        h,
        await sign({ key: new TextEncoder().encode("x".repeat(32)), alg: "HS256" }),
      ),
      `client ${id} is registered with token_endpoint_auth_method private_key_jwt, ` +
        "the request used client_secret_jwt",
    );
  });
  await t.step(
    "secret authentication for a private_key_jwt client is the wrong method",
    async () => {
      const res = await h.form("/default/token", {
        grant_type: "client_credentials",
        client_id: id,
        client_secret: "s",
      });
      await refused(
        res,
        `client ${id} is registered with token_endpoint_auth_method private_key_jwt, ` +
          "the request used client_secret_post",
      );
    },
  );
});

Deno.test("exp, nbf and iat: the 30 s skew at, below and above", async () => {
  assert.equal(ASSERTION_SKEW_S, 30);
  const { h, at } = setup();
  const { privateKey, jwk } = await keyPair();
  const { client_id: id } = await register(h, {
    token_endpoint_auth_method: "private_key_jwt",
    jwks: { keys: [jwk] },
  });
  const now = T0 / 1000;
  const request = async (claims: Record<string, unknown>) =>
    await tokenRequest(h, await assertion(id, at.ms, { key: privateKey, claims }));
  // exp in the past by 29 s: still inside the skew; by 30 or 31: expired
  await granted(await request({ exp: now - 29, iat: now - 60 }), id);
  await refused(await request({ exp: now - 30, iat: now - 60 }), "client_assertion has expired");
  await refused(await request({ exp: now - 31, iat: now - 60 }), "client_assertion has expired");
  // nbf and iat ahead by 30 s are accepted; by 31 s refused
  await granted(await request({ nbf: now + 29 }), id);
  await granted(await request({ nbf: now + 30 }), id);
  await refused(await request({ nbf: now + 31 }), "client_assertion is not yet valid (nbf)");
  await granted(await request({ iat: now + 29, exp: now + 90 }), id);
  await granted(await request({ iat: now + 30, exp: now + 90 }), id);
  await refused(
    await request({ iat: now + 31, exp: now + 90 }),
    "client_assertion iat is in the future",
  );
});

Deno.test("a jti is remembered until its assertion expires (exp + skew)", async () => {
  const { h, at } = setup();
  const { privateKey, jwk } = await keyPair();
  const { client_id: id } = await register(h, {
    token_endpoint_auth_method: "private_key_jwt",
    jwks: { keys: [jwk] },
  });
  const exp = T0 / 1000 + 60;
  const once = await assertion(id, at.ms, { key: privateKey, claims: { exp } });
  await granted(await tokenRequest(h, once), id);
  // one second before the end of the window: a replay
  at.ms = (exp + ASSERTION_SKEW_S - 1) * 1000;
  await refused(await tokenRequest(h, once), "client_assertion jti has been used before");
  // at the end of the window the assertion itself has expired
  at.ms = (exp + ASSERTION_SKEW_S) * 1000;
  await refused(await tokenRequest(h, once), "client_assertion has expired");
  // the same jti in a new assertion after the window is a new assertion
  const again = await assertion(id, at.ms, {
    key: privateKey,
    claims: { jti: claimsOf(once).jti, exp: exp + 120, iat: exp + 60 },
  });
  await granted(await tokenRequest(h, again), id);
});

Deno.test("the replay cache is bounded: the oldest jti goes first", async () => {
  const { h, at } = setup();
  const { privateKey, jwk } = await keyPair();
  const { client_id: id } = await register(h, {
    token_endpoint_auth_method: "private_key_jwt",
    jwks: { keys: [jwk] },
  });
  h.core.protocol.state.assertionJtis = new BoundedMap(2);
  const [a, b, c] = await Promise.all(
    [1, 2, 3].map(() => assertion(id, at.ms, { key: privateKey })),
  );
  await granted(await tokenRequest(h, a), id);
  await granted(await tokenRequest(h, b), id);
  // at the bound (2 remembered): both replays refused
  await refused(await tokenRequest(h, a), "client_assertion jti has been used before");
  await refused(await tokenRequest(h, b), "client_assertion jti has been used before");
  // above it the oldest is forgotten
  await granted(await tokenRequest(h, c), id);
  await refused(await tokenRequest(h, c), "client_assertion jti has been used before");
  await refused(await tokenRequest(h, b), "client_assertion jti has been used before");
  await granted(await tokenRequest(h, a), id);
});

Deno.test("token_endpoint_auth_signing_alg, when registered, is the one alg accepted", async () => {
  const { h, at } = setup();
  const rsa = await keyPair("PS256", "r");
  const { client_id: id } = await register(h, {
    token_endpoint_auth_method: "private_key_jwt",
    token_endpoint_auth_signing_alg: "RS256",
    jwks: { keys: [{ ...rsa.jwk, alg: undefined }] },
  });
  await refused(
    await tokenRequest(h, await assertion(id, at.ms, { key: rsa.privateKey, alg: "PS256" })),
    "client_assertion alg PS256 is not the registered token_endpoint_auth_signing_alg RS256",
  );
});

Deno.test("private_key_jwt with RSA, EdDSA and ES512 keys; private JWKs never verify", async () => {
  const { h, at } = setup();
  for (const alg of ["RS256", "PS384", "ES384", "ES512", "EdDSA"]) {
    const { privateKey, jwk } = await keyPair(alg, alg);
    const { client_id: id } = await register(h, {
      token_endpoint_auth_method: "private_key_jwt",
      jwks: { keys: [jwk] },
    });
    await granted(await tokenRequest(h, await assertion(id, at.ms, { key: privateKey, alg })), id);
  }
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const { client_id: id } = await register(h, {
    token_endpoint_auth_method: "private_key_jwt",
    jwks: { keys: [await exportJWK(privateKey)] },
  });
  await refused(
    await tokenRequest(h, await assertion(id, at.ms, { key: privateKey })),
    "client_assertion signature does not verify",
  );
});

Deno.test("private_key_jwt without jwks or jwks_uri cannot authenticate", async () => {
  const { h, at } = setup();
  const { privateKey } = await keyPair();
  const { client_id: id } = await register(h, { token_endpoint_auth_method: "private_key_jwt" });
  await refused(
    await tokenRequest(h, await assertion(id, at.ms, { key: privateKey })),
    `client ${id} registered neither jwks nor jwks_uri`,
  );
});

Deno.test("client_secret_jwt: an HMAC with the registered secret", async () => {
  const { h, at } = setup();
  const { client_id: id, client_secret: secret } = await register(h, {
    token_endpoint_auth_method: "client_secret_jwt",
  });
  assert.ok(secret);
  const key = new TextEncoder().encode(secret);
  for (const alg of ["HS256", "HS384", "HS512"]) {
    await granted(await tokenRequest(h, await assertion(id, at.ms, { key, alg })), id);
  }
  await refused(
    await tokenRequest(
      h,
      await assertion(id, at.ms, { key: new TextEncoder().encode(`${secret}x`), alg: "HS256" }),
    ),
    "client_assertion signature does not verify",
  );
  // the secret itself is not accepted in place of the assertion
  const posted = await h.form("/default/token", {
    grant_type: "client_credentials",
    client_id: id,
    client_secret: secret!,
  });
  await refused(
    posted,
    `client ${id} is registered with token_endpoint_auth_method client_secret_jwt, ` +
      "the request used client_secret_post",
  );
});

Deno.test("unregistered clients keep the permissive rules: shape checked, signature not", async () => {
  const { h, at } = setup();
  const { privateKey } = await keyPair();
  const once = await assertion("anyone", at.ms, { key: privateKey, without: ["jti"] });
  await granted(await tokenRequest(h, once), "anyone");
  await granted(await tokenRequest(h, once), "anyone");
  await refused(
    await tokenRequest(h, await assertion("anyone", at.ms, { key: privateKey, without: ["exp"] })),
    "client_assertion has no exp",
  );
});

/** A fake JWKS host: counts fetches, answers what `serve` says. */
function jwksHost(serve: () => Response) {
  const seen: string[] = [];
  const fetch = (input: string | URL | Request) => {
    seen.push(String(input instanceof Request ? input.url : input));
    return Promise.resolve(serve());
  };
  return { seen, fetch: fetch as typeof globalThis.fetch };
}

const JWKS_URI = "https://127.0.0.1/jwks";

Deno.test("jwks_uri: fetched through fetchOutbound, cached 300 s without cache headers", async () => {
  assert.equal(JWKS_DEFAULT_CACHE_S, 300);
  let keys: unknown[] = [];
  const host = jwksHost(() => Response.json({ keys }));
  const { h, at } = setup(host.fetch);
  const first = await keyPair("ES256", "k1");
  keys = [first.jwk];
  const { client_id: id } = await register(h, {
    token_endpoint_auth_method: "private_key_jwt",
    jwks_uri: JWKS_URI,
  });
  const request = async () =>
    await tokenRequest(h, await assertion(id, at.ms, { key: first.privateKey, kid: "k1" }));
  await granted(await request(), id);
  assert.deepEqual(host.seen, [JWKS_URI]);
  at.ms = T0 + (JWKS_DEFAULT_CACHE_S - 1) * 1000;
  await granted(await request(), id);
  assert.equal(host.seen.length, 1, "below the bound: cached");
  at.ms = T0 + JWKS_DEFAULT_CACHE_S * 1000;
  await granted(await request(), id);
  assert.equal(host.seen.length, 2, "at the bound: fetched again");
  at.ms += (JWKS_DEFAULT_CACHE_S + 1) * 1000;
  await granted(await request(), id);
  assert.equal(host.seen.length, 3, "above the bound: fetched again");
  // a rotated key (a kid the cached set lacks) fetches once more at once
  const second = await keyPair("ES256", "k2");
  keys = [first.jwk, second.jwk];
  await granted(
    await tokenRequest(h, await assertion(id, at.ms, { key: second.privateKey, kid: "k2" })),
    id,
  );
  assert.equal(host.seen.length, 4);
});

Deno.test("jwks_uri: Cache-Control max-age and no-store are followed", async () => {
  let cacheControl = "max-age=60";
  const { privateKey, jwk } = await keyPair();
  const host = jwksHost(() =>
    Response.json({ keys: [jwk] }, { headers: { "cache-control": cacheControl } })
  );
  const { h, at } = setup(host.fetch);
  const { client_id: id } = await register(h, {
    token_endpoint_auth_method: "private_key_jwt",
    jwks_uri: JWKS_URI,
  });
  const request = async () =>
    await tokenRequest(h, await assertion(id, at.ms, { key: privateKey }));
  await granted(await request(), id);
  at.ms = T0 + 59_000;
  await granted(await request(), id);
  assert.equal(host.seen.length, 1);
  at.ms = T0 + 60_000;
  await granted(await request(), id);
  assert.equal(host.seen.length, 2);
  cacheControl = "no-store";
  at.ms = T0 + 200_000;
  await granted(await request(), id);
  await granted(await request(), id);
  assert.equal(host.seen.length, 4, "no-store: fetched on every use");
});

Deno.test("jwks_uri: the size bound at, below and above, and unusable answers", async () => {
  const { privateKey, jwk } = await keyPair();
  let body = "";
  const host = jwksHost(() => new Response(body, { headers: { "cache-control": "no-store" } }));
  const { h, at } = setup(host.fetch);
  const { client_id: id } = await register(h, {
    token_endpoint_auth_method: "private_key_jwt",
    jwks_uri: JWKS_URI,
  });
  const request = async () =>
    await tokenRequest(h, await assertion(id, at.ms, { key: privateKey }));
  const padded = (size: number) => {
    const json = JSON.stringify({ keys: [jwk], pad: "" });
    return json.replace(`"pad":""`, `"pad":"${"x".repeat(size - json.length)}"`);
  };
  assert.equal(MAX_DOCUMENT_BYTES, 5120);
  for (const size of [MAX_DOCUMENT_BYTES - 1, MAX_DOCUMENT_BYTES]) {
    body = padded(size);
    assert.equal(body.length, size);
    await granted(await request(), id);
  }
  body = padded(MAX_DOCUMENT_BYTES + 1);
  await refused(
    await request(),
    `Cannot use jwks_uri ${JWKS_URI}: the JWK Set is larger than 5120 bytes`,
  );
  body = "not json";
  await refused(await request(), `Cannot use jwks_uri ${JWKS_URI}: the JWK Set is not JSON`);
  body = "{}";
  await refused(
    await request(),
    `Cannot use jwks_uri ${JWKS_URI}: the JWK Set has no keys array`,
  );
});

Deno.test("jwks_uri: URLs outside the outbound bounds are never fetched", async () => {
  const host = jwksHost(() => Response.json({ keys: [] }));
  const { h, at } = setup(host.fetch);
  const { privateKey } = await keyPair();
  const cases: [string, string][] = [
    ["file:///etc/passwd", "the URL must use https"],
    [
      "http://127.0.0.1/jwks",
      "plain http is accepted for loopback hosts only with " +
      "--client-metadata-allow-http-loopback",
    ],
    [
      "https://127.1/jwks",
      "the URL is not in normalised form: it parses as https://127.0.0.1/jwks",
    ],
    ["https://127.0.0.1/a/%2e%2e/jwks", "the URL must have a path without . or .. segments"],
    ["https://127.0.0.1/a/../jwks", "the URL must have a path without . or .. segments"],
    [
      "https://10.0.0.1/jwks",
      "10.0.0.1 is a private or reserved address (10.0.0.1); " +
      "--client-metadata-allow-private-networks allows it",
    ],
    [
      "https://[::ffff:a9fe:a9fe]/jwks",
      "[::ffff:a9fe:a9fe] is a private or reserved address ([::ffff:a9fe:a9fe]); " +
      "--client-metadata-allow-private-networks allows it",
    ],
  ];
  for (const [uri, reason] of cases) {
    const { client_id: id } = await register(h, {
      token_endpoint_auth_method: "private_key_jwt",
      jwks_uri: uri,
    });
    await refused(
      await tokenRequest(h, await assertion(id, at.ms, { key: privateKey })),
      `Cannot use jwks_uri ${uri}: ${reason}`,
    );
  }
  assert.deepEqual(host.seen, []);
});
