import assert from "node:assert/strict";
import { BASE, claimsOf, harness } from "./_test_support.ts";
import { createCore } from "../provider_state.ts";
import { DEFAULT_CONFIG } from "../config/json_config.ts";
import { createProtocolHandler } from "./_test_support.ts";
import { Issuers, MAX_ISSUER_SETTINGS } from "./issuers.ts";

const discovery = async (h: ReturnType<typeof harness>, issuer: string, init?: RequestInit) => {
  const res = await h.call(`/${issuer}/.well-known/openid-configuration`, init);
  assert.equal(res.status, 200, issuer);
  return await res.json();
};

Deno.test("multi-segment issuers answer discovery, and every URL in it keeps the segments", async () => {
  const h = harness();
  for (const issuer of ["realms/x", "tenant1/v2.0", "a/b/c/d/e/f/g/h"]) {
    const doc = await discovery(h, issuer);
    assert.equal(doc.issuer, `${BASE}/${issuer}`);
    assert.equal(doc.token_endpoint, `${BASE}/${issuer}/token`);
    assert.equal(doc.jwks_uri, `${BASE}/${issuer}/jwks`);
    assert.equal(doc.registration_endpoint, `${BASE}/${issuer}/register`);
  }
  const rfc8414 = await h.call("/.well-known/oauth-authorization-server/realms/x");
  assert.equal((await rfc8414.json()).issuer, `${BASE}/realms/x`);
  const suffixed = await h.call("/realms/x/.well-known/oauth-authorization-server");
  assert.equal((await suffixed.json()).issuer, `${BASE}/realms/x`);
});

Deno.test("multi-segment issuers: a token is issued, named and verified there", async () => {
  const h = harness();
  const res = await h.form("/realms/x/token", {
    grant_type: "client_credentials",
    client_id: "app",
    client_secret: "s",
    scope: "api",
  });
  assert.equal(res.status, 200);
  const token = (await res.json()).access_token;
  assert.equal(claimsOf(token).iss, `${BASE}/realms/x`);
  const jwks = await (await h.call("/realms/x/jwks")).json();
  assert.equal(jwks.keys[0].kid, "realms/x");
  const info = await h.call("/realms/x/userinfo", {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(info.status, 200);
  await info.body?.cancel();
  // Another issuer (a prefix of it, or one segment more) does not take it.
  for (const other of ["realms", "realms/x/y"]) {
    const res = await h.call(`/${other}/userinfo`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(res.status, 401, other);
    await res.body?.cancel();
  }
});

Deno.test("issuer segment bounds on protocol routes: count 8 and length 256, per segment rules", async () => {
  const h = harness();
  const segments = (n: number) => Array.from({ length: n }, (_, i) => `s${i}`).join("/");
  for (const ok of [segments(7), segments(8), `a/${"x".repeat(255)}`, `a/${"x".repeat(256)}`]) {
    const res = await h.call(`/${ok}/jwks`);
    assert.equal(res.status, 200, ok);
    await res.body?.cancel();
  }
  const refused: [string, string][] = [
    [segments(9), "no such issuer: issuer must have at most 8 path segments"],
    [`a/${"x".repeat(257)}`, "no such issuer: issuer path segments must be at most 256 characters"],
    ["realms/_mock", "no such issuer: the issuer prefix _mock is reserved"],
    ["realms/a%00b", "no such issuer: issuer must not contain control characters"],
    ["realms/a%2Fb", "no such issuer: an issuer path segment must not hold an encoded /"],
    ["realms/%E0%A4%A", "issuer id is not valid percent-encoding"],
  ];
  for (const [issuer, detail] of refused) {
    const res = await h.call(`/${issuer}/jwks`);
    assert.equal(res.status, 404, issuer);
    assert.equal((await res.json()).detail, `Cannot find /${issuer}/jwks: ${detail}`, issuer);
  }
  // Dot segments in any spelling never reach a row: the URL parser removes them first.
  for (const path of ["/realms/%2e%2e/jwks", "/realms/.%2E/jwks", "/realms/%2E/x/../jwks"]) {
    const url = new URL(BASE + path);
    assert.ok(!url.pathname.includes("%2e") && !url.pathname.includes("%2E"), path);
    const res = await h.call(path);
    const body = await res.json();
    assert.ok(res.status === 200 || res.status === 404, path);
    if (res.status === 404) {
      assert.equal(body.detail, `Cannot find ${url.pathname}: no route for this path`);
    } else assert.equal(body.keys[0].kid, url.pathname.slice(1, -"/jwks".length), path);
  }
  const root = await h.call("/.well-known/openid-configuration");
  assert.equal(root.status, 404);
  assert.equal(
    (await root.json()).detail,
    "Cannot find /.well-known/openid-configuration: discovery needs an issuer: use " +
      "/{issuer}/.well-known/openid-configuration",
  );
});

Deno.test("multi-segment issuers: the authorization code flow, iss and the debugger", async () => {
  const h = harness();
  const auth = await h.call(
    `/realms/x/authorize?${new URLSearchParams({
      client_id: "app",
      redirect_uri: "http://rp.test/cb",
      response_type: "code",
      state: "s",
    })}`,
  );
  const location = new URL(auth.headers.get("location")!);
  assert.equal(location.searchParams.get("iss"), `${BASE}/realms/x`);
  const token = await h.form("/realms/x/token", {
    grant_type: "authorization_code",
    code: location.searchParams.get("code")!,
    redirect_uri: "http://rp.test/cb",
    client_id: "app",
  });
  assert.equal(token.status, 200);
  await token.body?.cancel();
  const page = await h.call("/realms/x/debugger");
  assert.equal(page.status, 200);
  assert.match(await page.text(), /realms\/x\/debugger\/callback/);
});

function withIssuers(options: ConstructorParameters<typeof Issuers>[0]) {
  const core = createCore(DEFAULT_CONFIG);
  const protocol = { ...core.protocol, issuers: new Issuers(options) };
  const handler = createProtocolHandler(protocol);
  return {
    issuers: protocol.issuers,
    call: (path: string, init?: RequestInit) => handler(new Request(BASE + path, init)),
  };
}

Deno.test("a trailing-slash issuer: iss and discovery issuer end in /, endpoints do not", async () => {
  const h = withIssuers({ configured: { "realms/x": { trailingSlash: true } } });
  const doc = await (await h.call("/realms/x/.well-known/openid-configuration")).json();
  assert.equal(doc.issuer, `${BASE}/realms/x/`);
  assert.equal(doc.token_endpoint, `${BASE}/realms/x/token`);
  const res = await h.call("/realms/x/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "client_credentials", client_id: "a", scope: "api" }),
  });
  const token = (await res.json()).access_token;
  assert.equal(claimsOf(token).iss, `${BASE}/realms/x/`);
  const info = await h.call("/realms/x/userinfo", {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(info.status, 200);
  await info.body?.cancel();
  // Others keep theirs without.
  const other = await (await h.call("/default/.well-known/openid-configuration")).json();
  assert.equal(other.issuer, `${BASE}/default`);
});

Deno.test("a public base URL fixes every issuer URL, whatever Host and X-Forwarded-* say", async () => {
  const h = withIssuers({ publicBaseUrl: "https://idp.example/auth/" });
  const doc = await (await h.call("/realms/x/.well-known/openid-configuration", {
    headers: { host: "other:1", "x-forwarded-host": "evil.example", "x-forwarded-proto": "http" },
  })).json();
  assert.equal(doc.issuer, "https://idp.example/auth/realms/x");
  assert.equal(doc.jwks_uri, "https://idp.example/auth/realms/x/jwks");
});

Deno.test("discovery overrides add and replace fields, for their issuer only", async () => {
  const h = withIssuers({
    configured: {
      "tenant1/v2.0": {
        discovery: { "tenant_region_scope": "EU", "response_modes_supported": ["query"] },
      },
    },
  });
  for (
    const path of [
      "/tenant1/v2.0/.well-known/openid-configuration",
      "/tenant1/v2.0/.well-known/oauth-authorization-server",
      "/.well-known/oauth-authorization-server/tenant1/v2.0",
    ]
  ) {
    const doc = await (await h.call(path)).json();
    assert.equal(doc.tenant_region_scope, "EU", path);
    assert.deepEqual(doc.response_modes_supported, ["query"], path);
    assert.equal(doc.token_endpoint, `${BASE}/tenant1/v2.0/token`, path);
  }
  const other = await (await h.call("/tenant1/.well-known/openid-configuration")).json();
  assert.equal(other.tenant_region_scope, undefined);
  assert.deepEqual(other.response_modes_supported, ["query", "fragment", "form_post"]);
});

Deno.test("Issuers: control-plane settings replace configured ones until clear, bounded", () => {
  const issuers = new Issuers({ configured: { a: { trailingSlash: true } } });
  assert.deepEqual(issuers.optionsOf("a"), { trailingSlash: true });
  assert.equal(issuers.set("a", { discovery: { x: 1 } }), true);
  assert.deepEqual(issuers.optionsOf("a"), { discovery: { x: 1 } });
  assert.deepEqual(issuers.list().map((e) => [e.issuer, e.source]), [["a", "control"]]);
  issuers.clear();
  assert.deepEqual(issuers.optionsOf("a"), { trailingSlash: true });
  assert.deepEqual(issuers.list().map((e) => [e.issuer, e.source]), [["a", "config"]]);
  for (let i = 0; i < MAX_ISSUER_SETTINGS - 1; i++) assert.equal(issuers.set(`i${i}`, {}), true);
  assert.equal(issuers.set("last", {}), true, "the 1000th");
  assert.equal(issuers.set("one-more", {}), false, "the 1001st");
  assert.equal(issuers.set("i0", { trailingSlash: true }), true, "replacing one is no new one");
});
