import assert from "node:assert/strict";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { BASE, basic, harness } from "./_test_support.ts";

const ISSUER = `${BASE}/default`;
const T0 = Date.UTC(2030, 0, 1);
const REDIRECT = "http://rp.test/cb";

type H = ReturnType<typeof harness>;

function setup() {
  const at = { ms: T0 };
  const h = harness({}, { now: () => at.ms });
  return { h, at };
}

async function register(h: H, body: Record<string, unknown>) {
  const res = await h.call("/default/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ redirect_uris: [REDIRECT], ...body }),
  });
  assert.equal(res.status, 201);
  return await res.json() as { client_id: string; client_secret?: string };
}

function object(
  clientId: string,
  claims: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    client_id: clientId,
    iss: clientId,
    aud: ISSUER,
    exp: T0 / 1000 + 60,
    response_type: "code",
    redirect_uri: REDIRECT,
    scope: "openid",
    state: "from-object",
    ...claims,
  };
}

async function sign(
  claims: Record<string, unknown>,
  key: CryptoKey | Uint8Array,
  alg = "ES256",
): Promise<string> {
  return await new SignJWT(claims).setProtectedHeader({ alg }).sign(key);
}

function unsigned(claims: Record<string, unknown>): string {
  const part = (v: unknown) => btoa(JSON.stringify(v)).replace(/=+$/, "");
  return `${part({ alg: "none" })}.${part(claims)}.`;
}

function authorize(h: H, query: Record<string, string>) {
  return h.call(`/default/authorize?${new URLSearchParams(query)}`);
}

async function refused(res: Response, error: string, description: string) {
  assert.equal(res.status, 400);
  assert.deepEqual(await res.json(), { error, error_description: description });
}

function stateOf(res: Response): string | null {
  assert.equal(res.status, 302);
  return new URL(res.headers.get("location")!).searchParams.get("state");
}

Deno.test("discovery: request objects by value, their algorithms; request_uri only from PAR", async () => {
  const { h } = setup();
  const doc = await (await h.call("/default/.well-known/openid-configuration")).json();
  assert.equal(doc.request_parameter_supported, true);
  assert.equal(doc.request_uri_parameter_supported, false);
  for (const alg of ["RS256", "ES256", "EdDSA", "HS256"]) {
    assert.ok(doc.request_object_signing_alg_values_supported.includes(alg), alg);
  }
});

Deno.test("a signed request object of a client with jwks: verified, its parameters only", async (t) => {
  const { h, at } = setup();
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  const other = await generateKeyPair("ES256");
  const { client_id: id } = await register(h, {
    token_endpoint_auth_method: "private_key_jwt",
    jwks: { keys: [await exportJWK(publicKey)] },
  });
  const send = async (claims: Record<string, unknown>, key: CryptoKey = privateKey) =>
    await authorize(h, {
      client_id: id,
      request: await sign(object(id, claims), key),
      state: "outside",
      redirect_uri: "http://evil.test/cb",
    });
  await t.step("accepted; the parameters outside are ignored", async () => {
    const res = await send({});
    assert.equal(stateOf(res.clone()), "from-object");
    assert.ok(res.headers.get("location")!.startsWith(REDIRECT));
  });
  await t.step("another key", async () => {
    await refused(
      await send({}, other.privateKey),
      "invalid_request_object",
      "request object signature does not verify",
    );
  });
  await t.step("alg none", async () => {
    await refused(
      await authorize(h, { client_id: id, request: unsigned(object(id)) }),
      "invalid_request_object",
      "request object alg must be one of RS256, RS384, RS512, PS256, PS384, PS512, ES256, " +
        "ES384, ES512, EdDSA, Ed25519",
    );
  });
  await t.step("client_id, iss, aud", async () => {
    await refused(
      await send({ client_id: "someone" }),
      "invalid_request_object",
      "request object client_id must be the request's client_id",
    );
    await refused(
      await send({ iss: "someone" }),
      "invalid_request_object",
      "request object iss must be the client_id",
    );
    await refused(
      await send({ aud: `${BASE}/other` }),
      "invalid_request_object",
      "request object aud must name the issuer",
    );
  });
  await t.step("exp with 30 s of skew: at, below and above", async () => {
    const now = T0 / 1000;
    assert.equal(stateOf(await send({ exp: now - 29 })), "from-object");
    await refused(
      await send({ exp: now - 30 }),
      "invalid_request_object",
      "request object has expired",
    );
    await refused(
      await send({ exp: now - 31 }),
      "invalid_request_object",
      "request object has expired",
    );
    await refused(
      await send({ nbf: now + 31 }),
      "invalid_request_object",
      "request object is not yet valid (nbf)",
    );
    assert.equal(at.ms, T0);
  });
  await t.step("with a request_uri too, the request_uri decides (RFC 9126 §4)", async () => {
    await refused(
      await authorize(h, {
        client_id: id,
        request: await sign(object(id), privateKey),
        request_uri: "urn:ietf:params:oauth:request_uri:x",
      }),
      "invalid_request_uri",
      "request_uri is unknown or has been used",
    );
  });
});

Deno.test("an HMAC request object of a secret client; a keyless public client cannot send one", async () => {
  const { h } = setup();
  const { client_id: id, client_secret: secret } = await register(h, {});
  const ok = await authorize(h, {
    client_id: id,
    request: await sign(object(id), new TextEncoder().encode(secret!), "HS256"),
  });
  assert.equal(stateOf(ok), "from-object");
  await refused(
    await authorize(h, {
      client_id: id,
      request: await sign(object(id), new TextEncoder().encode(`${secret}x`), "HS256"),
    }),
    "invalid_request_object",
    "request object signature does not verify",
  );
  const { client_id: pub } = await register(h, { token_endpoint_auth_method: "none" });
  await refused(
    await authorize(h, { client_id: pub, request: unsigned(object(pub)) }),
    "invalid_request_object",
    `client ${pub} has neither keys nor a secret to verify it with`,
  );
});

Deno.test("an unregistered client's request object is decoded, not verified", async () => {
  const { h } = setup();
  assert.equal(
    stateOf(await authorize(h, { client_id: "anyone", request: unsigned(object("anyone")) })),
    "from-object",
  );
  await refused(
    await authorize(h, { client_id: "anyone", request: "not-a-jwt" }),
    "invalid_request_object",
    "request is not a JWT",
  );
});

Deno.test("a request object pushed to /par: checked there, its parameters pushed", async () => {
  const { h } = setup();
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  const { client_id: id, client_secret: secret } = await register(h, {
    jwks: { keys: [await exportJWK(publicKey)] },
  });
  const res = await h.form("/default/par", {
    request: await sign(object(id, { state: "pushed-object" }), privateKey),
    state: "outside",
  }, { authorization: basic(id, secret) });
  assert.equal(res.status, 201);
  const { request_uri } = await res.json();
  assert.equal(stateOf(await authorize(h, { client_id: id, request_uri })), "pushed-object");
  const bad = await h.form("/default/par", {
    request: await sign(object(id), (await generateKeyPair("ES256")).privateKey),
  }, { authorization: basic(id, secret) });
  await refused(bad, "invalid_request_object", "request object signature does not verify");
});
