import assert from "node:assert/strict";
import { basic, claimsOf, harness } from "./_test_support.ts";

async function tokenFor(h: ReturnType<typeof harness>, path = "/default/token") {
  const res = await h.form(path, { grant_type: "client_credentials", scope: "api" }, {
    authorization: basic("svc"),
  });
  return (await res.json()).access_token as string;
}

Deno.test("userinfo returns the token's claims via GET and POST", async () => {
  const h = harness();
  const token = await tokenFor(h);
  const get = await h.call("/default/userinfo", { headers: { authorization: `Bearer ${token}` } });
  assert.equal(get.status, 200);
  assert.equal((await get.json()).sub, "svc");
  const post = await h.call("/default/userinfo", {
    method: "POST",
    headers: { authorization: `bearer ${token}` },
  });
  assert.equal(post.status, 200);
});

Deno.test("userinfo failures are 401 invalid_token with WWW-Authenticate", async () => {
  const h = harness();
  const none = await h.call("/default/userinfo");
  assert.equal(none.status, 401);
  assert.match(none.headers.get("www-authenticate")!, /^Bearer/);
  const bad = await h.call("/default/userinfo", {
    headers: { authorization: "Bearer abc.def.ghi" },
  });
  assert.equal(bad.status, 401);
  assert.match(bad.headers.get("www-authenticate")!, /error="invalid_token"/);
  assert.equal((await bad.json()).error, "invalid_token");
  const otherIssuer = await tokenFor(h, "/other/token");
  const wrong = await h.call("/default/userinfo", {
    headers: { authorization: `Bearer ${otherIssuer}` },
  });
  assert.equal(wrong.status, 401);
});

Deno.test("a token expires at userinfo and introspect when the clock advances", async () => {
  const h = harness();
  const token = await tokenFor(h);
  h.core.clock.advance(3601_000);
  const res = await h.call("/default/userinfo", { headers: { authorization: `Bearer ${token}` } });
  assert.equal(res.status, 401);
  const intro = await h.form("/default/introspect", { token }, { authorization: basic("rs") });
  assert.deepEqual(await intro.json(), { active: false });
});

Deno.test("at+jwt tokens self-verify at userinfo and introspect", async () => {
  const h = harness({
    tokenCallbacks: [{ issuer: "default", typ: "at+jwt" }],
  });
  const token = await tokenFor(h);
  assert.equal(claimsOf(token).client_id, "svc");
  const res = await h.call("/default/userinfo", { headers: { authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200);
  const intro = await h.form("/default/introspect", { token }, { authorization: basic("rs") });
  const body = await intro.json();
  assert.equal(body.active, true);
  assert.equal(body.client_id, "svc");
});

Deno.test("introspect: active with claims, inactive for junk, client identity required", async () => {
  const h = harness();
  const token = await tokenFor(h);
  const res = await h.form("/default/introspect", { token }, { authorization: basic("rs") });
  const body = await res.json();
  assert.equal(body.active, true);
  assert.equal(body.sub, "svc");
  assert.equal(body.scope, "api");
  assert.equal(body.tid, "default");
  const junk = await h.form("/default/introspect", { token: "junk", client_id: "rs" });
  assert.deepEqual(await junk.json(), { active: false });
  const anonymous = await h.form("/default/introspect", { token });
  assert.equal(anonymous.status, 401);
  assert.equal((await anonymous.json()).error, "invalid_client");
});

Deno.test("revoke: hint optional, unknown tokens 200, revoked tokens stop verifying", async () => {
  const h = harness();
  const token = await tokenFor(h);
  const unknown = await h.form("/default/revoke", { token: "unknown" });
  assert.equal(unknown.status, 200);
  assert.equal(await unknown.text(), "");
  const res = await h.form("/default/revoke", { token });
  assert.equal(res.status, 200);
  const intro = await h.form("/default/introspect", { token }, { authorization: basic("rs") });
  assert.deepEqual(await intro.json(), { active: false });
  const missing = await h.form("/default/revoke", {});
  assert.equal((await missing.json()).error, "invalid_request");
});

Deno.test("revoking a refresh token makes it unknown to the refresh grant", async () => {
  const h = harness();
  const auth = await h.call(
    "/default/authorize?client_id=a&redirect_uri=http://rp/cb&response_type=code&scope=openid",
  );
  const code = new URL(auth.headers.get("location")!).searchParams.get("code")!;
  const tokens = await (await h.form("/default/token", {
    grant_type: "authorization_code",
    code,
    client_id: "a",
    redirect_uri: "http://rp/cb",
  })).json();
  const intro = await h.form("/default/introspect", {
    token: tokens.refresh_token,
    client_id: "a",
  });
  assert.equal((await intro.json()).active, true);
  await h.form("/default/revoke", {
    token: tokens.refresh_token,
    token_type_hint: "refresh_token",
  });
  const res = await h.form("/default/token", {
    grant_type: "refresh_token",
    refresh_token: tokens.refresh_token,
  });
  assert.equal((await res.json()).error, "invalid_grant");
});

Deno.test("endsession redirects with state appended properly, or shows a page", async () => {
  const h = harness();
  const res = await h.call(
    "/default/endsession?post_logout_redirect_uri=" +
      encodeURIComponent("http://rp.test/out?a=1") + "&state=xyz",
  );
  assert.equal(res.status, 302);
  assert.equal(res.headers.get("location"), "http://rp.test/out?a=1&state=xyz");
  const page = await h.call("/default/endsession");
  assert.equal(page.status, 200);
  assert.match(await page.text(), /logged out/);
});

Deno.test("discovery in all three forms names the per-request issuer URL", async () => {
  const h = harness();
  const headers = {
    host: "internal:8080",
    "x-forwarded-host": "idp.example",
    "x-forwarded-proto": "https",
    "x-forwarded-port": "8443",
  };
  for (
    const path of [
      "/tenant/.well-known/openid-configuration",
      "/tenant/.well-known/oauth-authorization-server",
      "/.well-known/oauth-authorization-server/tenant",
    ]
  ) {
    const doc = await (await h.call(path, { headers })).json();
    assert.equal(doc.issuer, "https://idp.example:8443/tenant");
    assert.equal(doc.token_endpoint, "https://idp.example:8443/tenant/token");
    assert.ok(doc.grant_types_supported.includes("urn:ietf:params:oauth:grant-type:device_code"));
    assert.equal(
      doc.device_authorization_endpoint,
      "https://idp.example:8443/tenant/device_authorization",
    );
  }
  const plain = await (await h.call("/t/.well-known/openid-configuration")).json();
  assert.equal(plain.issuer, "http://localhost:8080/t");
});

Deno.test("jwks serves one public key with kid = issuer id", async () => {
  const h = harness();
  const body = await (await h.call("/tenant/jwks")).json();
  assert.equal(body.keys.length, 1);
  assert.equal(body.keys[0].kid, "tenant");
  assert.equal(body.keys[0].use, "sig");
  assert.equal(body.keys[0].alg, "RS256");
  assert.equal(body.keys[0].d, undefined);
});

Deno.test("routing: reserved and unreachable issuers are 404, wrong methods 405", async () => {
  const h = harness();
  const encoded = await h.call("/a%2Fb/jwks");
  assert.equal(encoded.status, 404);
  assert.equal(
    (await encoded.json()).detail,
    "Cannot find /a%2Fb/jwks: no such issuer: an issuer path segment must not hold an encoded /",
  );
  const reserved = await h.call("/_mockx/jwks");
  assert.equal(reserved.status, 404);
  const root = await h.call("/.well-known/openid-configuration");
  assert.equal(root.status, 404);
  const wrong = await h.call("/default/token");
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers.get("allow"), "POST");
});

Deno.test("HEAD on GET protocol routes answers like GET without a body", async () => {
  const h = harness();
  for (const path of ["/default/jwks", "/default/.well-known/openid-configuration"]) {
    const get = await h.call(path);
    const head = await h.call(path, { method: "HEAD" });
    assert.equal(head.status, get.status, path);
    assert.equal(head.headers.get("content-type"), get.headers.get("content-type"));
    assert.equal(await head.text(), "");
    await get.body?.cancel();
  }
  const post = await h.call("/default/token", { method: "HEAD" });
  assert.equal(post.status, 405, "a POST-only route stays POST-only");
  await post.body?.cancel();
});
