import assert from "node:assert/strict";
import { BASE, basic, claimsOf, harness } from "./_test_support.ts";
import { PAR_LIFETIME_S, REQUEST_URI_PREFIX } from "./par.ts";

const T0 = Date.UTC(2030, 0, 1);
const REDIRECT = "http://rp.test/cb";

type H = ReturnType<typeof harness>;

function setup(parRequiredIssuers?: string[]) {
  const at = { ms: T0 };
  const h = harness({}, { now: () => at.ms, parRequiredIssuers });
  return { h, at };
}

function push(h: H, body: Record<string, string>, headers: HeadersInit = {}) {
  return h.form("/default/par", {
    response_type: "code",
    redirect_uri: REDIRECT,
    scope: "openid api",
    state: "pushed-state",
    ...body,
  }, headers);
}

async function pushed(h: H, body: Record<string, string> = {}, clientId = "app") {
  const res = await push(h, body, { authorization: basic(clientId) });
  assert.equal(res.status, 201, await res.clone().text());
  assert.equal(res.headers.get("cache-control"), "no-store");
  const answer = await res.json();
  assert.equal(answer.expires_in, PAR_LIFETIME_S);
  assert.ok(answer.request_uri.startsWith(REQUEST_URI_PREFIX));
  return answer.request_uri as string;
}

function authorize(h: H, query: Record<string, string>) {
  return h.call(`/default/authorize?${new URLSearchParams(query)}`);
}

async function expectError(res: Response, status: number, error: string, description: string) {
  assert.equal(res.status, status);
  assert.deepEqual(await res.json(), { error, error_description: description });
}

Deno.test("discovery names the PAR endpoint; require_pushed_authorization_requests per issuer", async () => {
  const { h } = setup(["strict"]);
  const doc = await (await h.call("/default/.well-known/openid-configuration")).json();
  assert.equal(doc.pushed_authorization_request_endpoint, `${BASE}/default/par`);
  assert.equal(doc.require_pushed_authorization_requests, false);
  const strict = await (await h.call("/strict/.well-known/oauth-authorization-server")).json();
  assert.equal(strict.require_pushed_authorization_requests, true);
});

Deno.test("a pushed request: authorize takes its parameters from it only, once", async () => {
  const { h } = setup();
  const requestUri = await pushed(h, { nonce: "pushed-nonce" });
  const res = await authorize(h, {
    client_id: "app",
    request_uri: requestUri,
    // outside the pushed request: ignored
    redirect_uri: "http://evil.test/cb",
    state: "other-state",
    scope: "openid other",
  });
  assert.equal(res.status, 302);
  const location = new URL(res.headers.get("location")!);
  assert.equal(location.origin + location.pathname, REDIRECT);
  assert.equal(location.searchParams.get("state"), "pushed-state");
  const code = location.searchParams.get("code")!;
  const tokens = await (await h.form("/default/token", {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
  }, { authorization: basic("app") })).json();
  assert.equal(claimsOf(tokens.id_token).nonce, "pushed-nonce");
  assert.equal(tokens.scope, "openid api");
  // used up
  await expectError(
    await authorize(h, { client_id: "app", request_uri: requestUri }),
    400,
    "invalid_request_uri",
    "request_uri is unknown or has been used",
  );
});

Deno.test("request_uri lifetime 60 s: at, below and above", async () => {
  const { h, at } = setup();
  const requestUri = await pushed(h);
  at.ms = T0 + (PAR_LIFETIME_S - 1) * 1000;
  assert.equal((await authorize(h, { client_id: "app", request_uri: requestUri })).status, 302);
  const later = await pushed(h);
  at.ms += PAR_LIFETIME_S * 1000;
  await expectError(
    await authorize(h, { client_id: "app", request_uri: later }),
    400,
    "invalid_request_uri",
    "request_uri has expired",
  );
  const third = await pushed(h);
  at.ms += (PAR_LIFETIME_S + 1) * 1000;
  await expectError(
    await authorize(h, { client_id: "app", request_uri: third }),
    400,
    "invalid_request_uri",
    "request_uri has expired",
  );
});

Deno.test("request_uri of another client, another issuer, or made up", async () => {
  const { h } = setup();
  const requestUri = await pushed(h);
  await expectError(
    await authorize(h, { client_id: "intruder", request_uri: requestUri }),
    400,
    "invalid_request_uri",
    "request_uri was pushed for another client_id",
  );
  const other = await h.call(
    `/other/authorize?${new URLSearchParams({ client_id: "app", request_uri: requestUri })}`,
  );
  await expectError(other, 400, "invalid_request_uri", "request_uri is unknown or has been used");
  await expectError(
    await authorize(h, { client_id: "app", request_uri: `${REQUEST_URI_PREFIX}made-up` }),
    400,
    "invalid_request_uri",
    "request_uri is unknown or has been used",
  );
  // the refused attempts did not use it up
  assert.equal((await authorize(h, { client_id: "app", request_uri: requestUri })).status, 302);
});

Deno.test("the PAR endpoint: client authentication and the request's own rules", async (t) => {
  const { h } = setup();
  await t.step("no client at all", async () => {
    await expectError(
      await push(h, {}),
      401,
      "invalid_client",
      "client authentication is required",
    );
  });
  await t.step("a public client names itself", async () => {
    const res = await push(h, { client_id: "spa" });
    assert.equal(res.status, 201);
  });
  await t.step("a request_uri cannot be pushed", async () => {
    await expectError(
      await push(h, { request_uri: `${REQUEST_URI_PREFIX}x` }, { authorization: basic("app") }),
      400,
      "invalid_request",
      "request_uri must not be pushed",
    );
  });
  await t.step("redirect_uri missing or unusable", async () => {
    await expectError(
      await push(h, { redirect_uri: "javascript:alert(1)" }, { authorization: basic("app") }),
      400,
      "invalid_request",
      "redirect_uri is missing or not an absolute URI",
    );
  });
  await t.step("a registered client: its secret, method and redirect URIs", async () => {
    const reg = await (await h.call("/default/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: [REDIRECT] }),
    })).json();
    const ok = await push(h, {}, { authorization: basic(reg.client_id, reg.client_secret) });
    assert.equal(ok.status, 201);
    await expectError(
      await push(h, {}, { authorization: basic(reg.client_id, "wrong") }),
      401,
      "invalid_client",
      "client_secret does not match the registration",
    );
    await expectError(
      await push(h, { redirect_uri: "http://other.test/cb" }, {
        authorization: basic(reg.client_id, reg.client_secret),
      }),
      400,
      "invalid_request",
      "redirect_uri is not registered for this client",
    );
  });
  await t.step("client credentials are not part of the pushed request", async () => {
    const requestUri = await pushed(h, { client_id: "post", client_secret: "s" }, "post");
    const record = h.core.protocol.state.pushedRequests.get(requestUri)!;
    assert.equal(record.params.has("client_secret"), false);
    assert.equal(record.params.get("client_id"), "post");
  });
});

Deno.test("pushed requests required: per issuer (setting) and per client (registration)", async () => {
  const { h } = setup(["strict"]);
  const direct = { "client_id": "app", "redirect_uri": REDIRECT, "response_type": "code" };
  const refused = "a pushed authorization request is required: use request_uri from /par";
  await expectError(
    await h.call(`/strict/authorize?${new URLSearchParams(direct)}`),
    400,
    "invalid_request",
    refused,
  );
  assert.equal((await authorize(h, direct)).status, 302, "other issuers: as before");
  const bad = await h.call("/default/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ redirect_uris: [REDIRECT], require_pushed_authorization_requests: 1 }),
  });
  await expectError(
    bad,
    400,
    "invalid_client_metadata",
    "require_pushed_authorization_requests must be a boolean",
  );
  const reg = await (await h.call("/default/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      redirect_uris: [REDIRECT],
      require_pushed_authorization_requests: true,
      token_endpoint_auth_method: "none",
    }),
  })).json();
  await expectError(
    await authorize(h, { ...direct, client_id: reg.client_id }),
    400,
    "invalid_request",
    refused,
  );
  const res = await h.form("/default/par", { ...direct, client_id: reg.client_id });
  const { request_uri } = await res.json();
  assert.equal(
    (await authorize(h, { client_id: reg.client_id, request_uri })).status,
    302,
  );
});
