import assert from "node:assert/strict";
import { BASE, basic, harness } from "./_test_support.ts";
import { MAX_REDIRECT_URIS, MAX_VALUE_LENGTH } from "./client_metadata.ts";
import { listClients } from "../control/client_routes.ts";

const REDIRECT = "http://127.0.0.1:9/callback";
const ISSUER = `${BASE}/default`;

function register(h: ReturnType<typeof harness>, body: unknown, type = "application/json") {
  return h.call("/default/register", {
    method: "POST",
    headers: { "content-type": type },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function registered(h: ReturnType<typeof harness>, body: Record<string, unknown>) {
  const res = await register(h, { redirect_uris: [REDIRECT], ...body });
  assert.equal(res.status, 201);
  return await res.json();
}

async function expectError(res: Response, status: number, error: string, description: string) {
  assert.equal(res.status, status);
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.deepEqual(await res.json(), { error, error_description: description });
}

Deno.test("both discovery documents name the registration endpoint", async () => {
  const h = harness();
  for (
    const path of [
      "/default/.well-known/openid-configuration",
      "/default/.well-known/oauth-authorization-server",
      "/.well-known/oauth-authorization-server/default",
    ]
  ) {
    const doc = await (await h.call(path)).json();
    assert.equal(doc.registration_endpoint, `${ISSUER}/register`, path);
    assert.ok(doc.token_endpoint_auth_methods_supported.includes("none"));
  }
});

Deno.test("RFC 7591 registration: 201 with the client information response", async (t) => {
  const now = Date.UTC(2030, 0, 1);
  const h = harness({}, { now: () => now });
  await t.step("a public client: no secret", async () => {
    const res = await register(h, {
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      client_name: "e2e",
      scope: "mcp",
      unknown_member: "dropped",
    });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.equal(res.headers.get("content-type"), "application/json");
    const body = await res.json();
    assert.match(body.client_id, /^[0-9a-f-]{36}$/);
    assert.equal(typeof body.registration_access_token, "string");
    assert.deepEqual(body, {
      client_id: body.client_id,
      client_id_issued_at: now / 1000,
      registration_access_token: body.registration_access_token,
      registration_client_uri: `${ISSUER}/register/${body.client_id}`,
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      client_name: "e2e",
      scope: "mcp",
    });
  });
  await t.step("defaults: client_secret_basic, a secret that never expires", async () => {
    const body = await registered(h, {});
    assert.equal(body.token_endpoint_auth_method, "client_secret_basic");
    assert.deepEqual(body.grant_types, ["authorization_code"]);
    assert.deepEqual(body.response_types, ["code"]);
    assert.equal(typeof body.client_secret, "string");
    assert.equal(body.client_secret_expires_at, 0);
  });
  await t.step("client_secret_post gets a secret, private_key_jwt none", async () => {
    assert.equal(
      typeof (await registered(h, { token_endpoint_auth_method: "client_secret_post" }))
        .client_secret,
      "string",
    );
    const pkj = await registered(h, {
      token_endpoint_auth_method: "private_key_jwt",
      jwks_uri: "https://c.example/jwks",
    });
    assert.equal(pkj.client_secret, undefined);
    assert.equal(pkj.client_secret_expires_at, undefined);
  });
  await t.step("client_credentials only: no redirect_uris, no response type", async () => {
    const body = await registered(h, {
      redirect_uris: undefined,
      grant_types: ["client_credentials"],
    });
    assert.deepEqual(body.redirect_uris, []);
    assert.deepEqual(body.response_types, []);
  });
  await t.step("listed in the control plane without secrets; per issuer", async () => {
    const list = await listClients(h.core.protocol.state.clients).json();
    assert.equal(list.count, 5);
    assert.equal(list.clients[0].clientName, "e2e");
    assert.equal(list.clients[0].issuer, "default");
    assert.equal(list.clients[1].clientName, null);
    assert.doesNotMatch(JSON.stringify(list), /secret"|registration_access_token|Token"/);
  });
});

Deno.test("RFC 7591 errors: invalid_redirect_uri and invalid_client_metadata", async (t) => {
  const h = harness();
  const uri = (n: number) => `https://c.example/${"x".repeat(n - 18)}`;
  assert.equal(uri(MAX_VALUE_LENGTH).length, MAX_VALUE_LENGTH);
  const many = (n: number) => Array.from({ length: n }, (_, i) => `${REDIRECT}/${i}`);
  await t.step("bounds: at and below are accepted", async () => {
    await registered(h, { redirect_uris: [uri(MAX_VALUE_LENGTH)] });
    await registered(h, { redirect_uris: [uri(MAX_VALUE_LENGTH - 1)] });
    await registered(h, { redirect_uris: many(MAX_REDIRECT_URIS) });
    await registered(h, { redirect_uris: many(MAX_REDIRECT_URIS - 1) });
    await registered(h, { client_name: "n".repeat(MAX_VALUE_LENGTH) });
  });
  const cases: Array<[string, unknown, string, string]> = [
    [
      "no redirect_uris",
      {},
      "invalid_redirect_uri",
      "redirect_uris is required for the authorization_code grant",
    ],
    [
      "empty redirect_uris",
      { redirect_uris: [] },
      "invalid_redirect_uri",
      "redirect_uris is required for the authorization_code grant",
    ],
    [
      "redirect_uris not a list",
      { redirect_uris: REDIRECT },
      "invalid_redirect_uri",
      "redirect_uris must be an array of strings",
    ],
    [
      "a relative redirect URI",
      { redirect_uris: ["/cb"] },
      "invalid_redirect_uri",
      "redirect_uri must be an absolute URI without a fragment: /cb",
    ],
    [
      "a fragment",
      { redirect_uris: [`${REDIRECT}#f`] },
      "invalid_redirect_uri",
      `redirect_uri must be an absolute URI without a fragment: ${REDIRECT}#f`,
    ],
    [
      "a script scheme",
      { redirect_uris: ["javascript:alert(1)"] },
      "invalid_redirect_uri",
      "redirect_uri must be an absolute URI without a fragment: javascript:alert(1)",
    ],
    [
      "one URI too long",
      { redirect_uris: [uri(MAX_VALUE_LENGTH + 1)] },
      "invalid_redirect_uri",
      "redirect_uri is longer than 2048 characters",
    ],
    [
      "one URI too many",
      { redirect_uris: many(MAX_REDIRECT_URIS + 1) },
      "invalid_redirect_uri",
      "at most 32 redirect_uris are accepted",
    ],
    [
      "not an object",
      [REDIRECT],
      "invalid_client_metadata",
      "client metadata must be a JSON object",
    ],
    [
      "an unknown auth method",
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: "tls_client_auth" },
      "invalid_client_metadata",
      "token_endpoint_auth_method must be one of none, client_secret_basic, client_secret_post, " +
      "client_secret_jwt, private_key_jwt",
    ],
    [
      "an unknown grant type",
      { redirect_uris: [REDIRECT], grant_types: ["implicit"] },
      "invalid_client_metadata",
      "grant type implicit is not supported",
    ],
    [
      "an unknown response type",
      { redirect_uris: [REDIRECT], response_types: ["token"] },
      "invalid_client_metadata",
      "response type token is not supported",
    ],
    [
      "code grant without code",
      { redirect_uris: [REDIRECT], response_types: [] },
      "invalid_client_metadata",
      "grant type authorization_code and response type code must be registered together",
    ],
    [
      "code without the code grant",
      { grant_types: ["client_credentials"], response_types: ["code"] },
      "invalid_client_metadata",
      "grant type authorization_code and response type code must be registered together",
    ],
    [
      "jwks and jwks_uri",
      { redirect_uris: [REDIRECT], jwks_uri: "https://c.example/j", jwks: { keys: [] } },
      "invalid_client_metadata",
      "jwks and jwks_uri must not both be present",
    ],
    [
      "jwks not a set",
      { redirect_uris: [REDIRECT], jwks: [] },
      "invalid_client_metadata",
      "jwks must be a JWK Set: an object with a keys array",
    ],
    [
      "client_name not a string",
      { redirect_uris: [REDIRECT], client_name: 1 },
      "invalid_client_metadata",
      "client_name must be a string",
    ],
    [
      "client_name too long",
      { redirect_uris: [REDIRECT], client_name: "n".repeat(MAX_VALUE_LENGTH + 1) },
      "invalid_client_metadata",
      "client_name is longer than 2048 characters",
    ],
    [
      "grant_types not strings",
      { redirect_uris: [REDIRECT], grant_types: [1] },
      "invalid_client_metadata",
      "grant_types must be an array of strings",
    ],
    [
      "contacts not strings",
      { redirect_uris: [REDIRECT], contacts: "a@b" },
      "invalid_client_metadata",
      "contacts must be an array of strings",
    ],
  ];
  for (const [what, body, error, description] of cases) {
    await t.step(what, async () => {
      await expectError(await register(h, body), 400, error, description);
    });
  }
  await t.step("malformed JSON", async () => {
    await expectError(
      await register(h, "{"),
      400,
      "invalid_client_metadata",
      "request body is not valid JSON",
    );
  });
  await t.step("a form body", async () => {
    await expectError(
      await register(h, "redirect_uris=x", "application/x-www-form-urlencoded"),
      400,
      "invalid_client_metadata",
      "request body must be application/json",
    );
  });
  await t.step("nothing invalid was kept", () => {
    assert.equal(h.core.protocol.state.clients.size, 5);
  });
});

Deno.test("RFC 7592 read: the registration access token, nothing else", async (t) => {
  const h = harness();
  const info = await registered(h, { client_name: "r" });
  const read = (path: string, token?: string) =>
    h.call(path, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
  const path = new URL(info.registration_client_uri).pathname;
  await t.step("200: the same information", async () => {
    const res = await read(path, info.registration_access_token);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.deepEqual(await res.json(), info);
  });
  const refused: Array<[string, string, string | undefined, string]> = [
    ["no token", path, undefined, "a registration access token is required"],
    ["a wrong token", path, "wrong", "the registration access token is not valid for this client"],
    [
      "another client's id",
      "/default/register/nope",
      info.registration_access_token,
      "the registration access token is not valid for this client",
    ],
    [
      "another issuer",
      path.replace("/default/", "/other/"),
      info.registration_access_token,
      "the registration access token is not valid for this client",
    ],
  ];
  for (const [what, p, token, description] of refused) {
    await t.step(`401: ${what}`, async () => {
      const res = await read(p, token);
      assert.equal(res.status, 401);
      assert.match(res.headers.get("www-authenticate")!, /^Bearer error="invalid_token"/);
      assert.deepEqual(await res.json(), {
        error: "invalid_token",
        error_description: description,
      });
    });
  }
  await t.step("PUT and DELETE (RFC 7592 update, delete) are 405 with Allow", async () => {
    for (const method of ["PUT", "DELETE"]) {
      const res = await h.call(path, { method });
      assert.equal(res.status, 405);
      assert.match(res.headers.get("allow")!, /GET/);
      await res.body?.cancel();
    }
  });
});

Deno.test("a registered client is held to its registration; others stay permissive", async (t) => {
  const h = harness();
  const pub = await registered(h, { token_endpoint_auth_method: "none" });
  const conf = await registered(h, { grant_types: ["authorization_code", "client_credentials"] });
  const authorize = (clientId: string, redirect = REDIRECT) =>
    h.call(`/default/authorize?${new URLSearchParams({
      client_id: clientId,
      redirect_uri: redirect,
      response_type: "code",
      state: "s",
    })}`);
  const code = async (clientId: string) =>
    new URL((await authorize(clientId)).headers.get("location")!).searchParams.get("code")!;
  await t.step(
    "authorize: a redirect URI not registered exactly is refused, not followed",
    async () => {
      for (const other of [`${REDIRECT}/`, `${REDIRECT}?x=1`, "http://127.0.0.1:9/CALLBACK"]) {
        const res = await authorize(pub.client_id, other);
        await expectError(
          res,
          400,
          "invalid_request",
          "redirect_uri is not registered for this client",
        );
      }
      assert.equal((await authorize(pub.client_id)).status, 302);
      assert.equal((await authorize("unregistered", "https://any.example/cb")).status, 302);
    },
  );
  await t.step("authorize: a client without the code grant", async () => {
    const cc = await registered(h, {
      redirect_uris: [REDIRECT],
      grant_types: ["client_credentials"],
      response_types: [],
    });
    const location = new URL((await authorize(cc.client_id)).headers.get("location")!);
    assert.equal(location.searchParams.get("error"), "unauthorized_client");
  });
  const tokenCall = (body: Record<string, string>, headers: HeadersInit = {}) =>
    h.form("/default/token", body, headers);
  await t.step("public client: no secret, redeems with its id", async () => {
    const res = await tokenCall({
      grant_type: "authorization_code",
      code: await code(pub.client_id),
      client_id: pub.client_id,
      redirect_uri: REDIRECT,
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });
  await t.step("public client presenting a secret: invalid_client", async () => {
    const res = await tokenCall({
      grant_type: "authorization_code",
      code: await code(pub.client_id),
      client_id: pub.client_id,
      client_secret: "x",
    });
    await expectError(
      res,
      401,
      "invalid_client",
      `client ${pub.client_id} is registered with token_endpoint_auth_method none, the request used client_secret_post`,
    );
  });
  await t.step("public client: a grant it did not register", async () => {
    const res = await tokenCall({ grant_type: "client_credentials", client_id: pub.client_id });
    await expectError(
      res,
      400,
      "unauthorized_client",
      `client ${pub.client_id} is not registered for grant client_credentials`,
    );
  });
  await t.step("confidential client: the right secret by its method", async () => {
    const res = await tokenCall(
      { grant_type: "client_credentials" },
      { authorization: basic(conf.client_id, conf.client_secret) },
    );
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });
  await t.step("confidential client: a wrong secret, another method, no credentials", async () => {
    await expectError(
      await tokenCall({ grant_type: "client_credentials" }, {
        authorization: basic(conf.client_id, "wrong"),
      }),
      401,
      "invalid_client",
      "client_secret does not match the registration",
    );
    await expectError(
      await tokenCall({
        grant_type: "client_credentials",
        client_id: conf.client_id,
        client_secret: conf.client_secret,
      }),
      401,
      "invalid_client",
      `client ${conf.client_id} is registered with token_endpoint_auth_method client_secret_basic, the request used client_secret_post`,
    );
    // the code alone names the client: still held to its method
    await expectError(
      await tokenCall({ grant_type: "authorization_code", code: await code(conf.client_id) }),
      401,
      "invalid_client",
      `client ${conf.client_id} is registered with token_endpoint_auth_method client_secret_basic, the request used none`,
    );
  });
  await t.step("refresh_token needs the grant registered", async () => {
    const res = await tokenCall(
      { grant_type: "authorization_code", code: await code(conf.client_id) },
      { authorization: basic(conf.client_id, conf.client_secret) },
    );
    const { refresh_token } = await res.json();
    await expectError(
      await tokenCall({ grant_type: "refresh_token", refresh_token }, {
        authorization: basic(conf.client_id, conf.client_secret),
      }),
      400,
      "unauthorized_client",
      `client ${conf.client_id} is not registered for grant refresh_token`,
    );
  });
  await t.step("an unregistered client id keeps working with any secret", async () => {
    const res = await tokenCall({ grant_type: "client_credentials" }, {
      authorization: basic("free", "anything"),
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });
});
