import assert from "node:assert/strict";
import { basic, claimsOf, harness, headerOf } from "./_test_support.ts";
import { GRANT_TYPES } from "./grant_types.ts";
import { GRANTS } from "./token.ts";

Deno.test("the token endpoint handles exactly the grant types discovery advertises, in order", () => {
  assert.deepEqual(Object.keys(GRANTS), [...GRANT_TYPES]);
});

Deno.test("client_credentials issues an access token with sub = client id", async () => {
  const h = harness();
  const res = await h.form("/default/token", { grant_type: "client_credentials", scope: "api" }, {
    authorization: basic("svc"),
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), "no-store");
  const body = await res.json();
  assert.equal(body.token_type, "Bearer");
  assert.equal(body.expires_in, 3600);
  assert.equal(body.scope, "api");
  assert.equal(body.id_token, undefined);
  assert.equal(body.refresh_token, undefined);
  const claims = claimsOf(body.access_token);
  assert.equal(claims.sub, "svc");
  assert.equal(claims.aud, "api");
  assert.equal(claims.iss, "http://localhost:8080/default");
  assert.equal(claims.tid, "default");
  assert.equal(claims.iat, claims.nbf);
  assert.equal(Number(claims.exp) - Number(claims.iat), 3600);
  assert.equal(headerOf(body.access_token).kid, "default");
  assert.equal(headerOf(body.access_token).typ, "JWT");
});

Deno.test("client_credentials via client_secret_post defaults aud to default", async () => {
  const h = harness();
  const res = await h.form("/i1/token", {
    grant_type: "client_credentials",
    client_id: "c1",
    client_secret: "x",
  });
  const claims = claimsOf((await res.json()).access_token);
  assert.equal(claims.aud, "default");
  assert.equal(claims.sub, "c1");
});

Deno.test("client_credentials without a client is 401 invalid_client with a challenge", async () => {
  const h = harness();
  const res = await h.form("/default/token", { grant_type: "client_credentials" });
  assert.equal(res.status, 401);
  assert.match(res.headers.get("www-authenticate") ?? "", /^Basic/);
  assert.equal((await res.json()).error, "invalid_client");
});

Deno.test("unknown grant_type is unsupported_grant_type, missing is invalid_request", async () => {
  const h = harness();
  const unknown = await h.form("/default/token", { grant_type: "foo", client_id: "c" });
  assert.equal(unknown.status, 400);
  assert.equal((await unknown.json()).error, "unsupported_grant_type");
  const missing = await h.form("/default/token", { client_id: "c" });
  assert.equal((await missing.json()).error, "invalid_request");
});

Deno.test("password grant: sub = username, id_token aud = client; missing username fails", async () => {
  const h = harness();
  const res = await h.form("/default/token", {
    grant_type: "password",
    username: "alice",
    password: "whatever",
    client_id: "app",
    scope: "openid api",
  });
  const body = await res.json();
  assert.equal(claimsOf(body.access_token).sub, "alice");
  assert.equal(claimsOf(body.access_token).aud, "api");
  assert.equal(claimsOf(body.id_token).aud, "app");
  assert.equal(claimsOf(body.id_token).sub, "alice");
  const bad = await h.form("/default/token", { grant_type: "password", client_id: "app" });
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).error, "invalid_request");
});

Deno.test("scope with only OIDC scopes gives an empty access-token audience", async () => {
  const h = harness();
  const res = await h.form("/default/token", {
    grant_type: "password",
    username: "u",
    client_id: "app",
    scope: "openid profile",
  });
  assert.deepEqual(claimsOf((await res.json()).access_token).aud, []);
});

Deno.test("jwt-bearer copies the assertion's subject and claims; scope is required", async () => {
  const h = harness();
  const assertion = `eyJhbGciOiJub25lIn0.${
    btoa(JSON.stringify({ sub: "bob", iss: "x", aud: "y", custom: 1, exp: 1 })).replace(/=+$/, "")
  }.sig`;
  const grant = "urn:ietf:params:oauth:grant-type:jwt-bearer";
  const res = await h.form("/default/token", { grant_type: grant, assertion, scope: "api2" }, {
    authorization: basic("obo"),
  });
  assert.equal(res.status, 200);
  const claims = claimsOf((await res.json()).access_token);
  assert.equal(claims.sub, "bob");
  assert.equal(claims.custom, 1);
  assert.equal(claims.aud, "api2");
  assert.equal(claims.iss, "http://localhost:8080/default");
  assert.notEqual(claims.exp, 1);
  const noScope = await h.form("/default/token", { grant_type: grant, assertion });
  assert.equal((await noScope.json()).error, "invalid_request");
  const notJwt = await h.form("/default/token", { grant_type: grant, assertion: "x", scope: "a" });
  assert.equal((await notJwt.json()).error, "invalid_grant");
});

Deno.test("token exchange: audience param sets aud; client auth required", async () => {
  const h = harness();
  const subject = await h.form("/default/token", {
    grant_type: "password",
    username: "carol",
    client_id: "web",
  });
  const subjectToken = (await subject.json()).access_token;
  const grant = "urn:ietf:params:oauth:grant-type:token-exchange";
  const params = {
    "grant_type": grant,
    "subject_token": subjectToken,
    "subject_token_type": "urn:ietf:params:oauth:token-type:access_token",
    audience: "downstream",
  };
  const res = await h.form("/default/token", params, { authorization: basic("api") });
  const body = await res.json();
  assert.equal(body.issued_token_type, "urn:ietf:params:oauth:token-type:access_token");
  const claims = claimsOf(body.access_token);
  assert.equal(claims.sub, "carol");
  assert.equal(claims.aud, "downstream");
  const anonymous = await h.form("/default/token", params);
  assert.equal(anonymous.status, 401);
  assert.equal((await anonymous.json()).error, "invalid_client");
});

Deno.test("private_key_jwt assertions are parsed: aud must be the issuer", async () => {
  const h = harness();
  const now = Math.floor(Date.now() / 1000);
  const make = (claims: Record<string, unknown>) =>
    `eyJhbGciOiJSUzI1NiJ9.${btoa(JSON.stringify(claims)).replace(/=+$/, "")}.c2ln`;
  const good = make({
    iss: "pk",
    sub: "pk",
    aud: "http://localhost:8080/default",
    exp: now + 60,
    iat: now,
  });
  const form = (assertion: string) =>
    h.form("/default/token", {
      grant_type: "client_credentials",
      client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
      client_assertion: assertion,
    });
  const ok = await form(good);
  assert.equal(ok.status, 200);
  assert.equal(claimsOf((await ok.json()).access_token).sub, "pk");
  const wrongAud = await form(make({ iss: "pk", sub: "pk", aud: "other", exp: now + 60 }));
  assert.equal(wrongAud.status, 401);
  const tooLong = await form(
    make({ iss: "pk", sub: "pk", aud: "http://localhost:8080/default", exp: now + 500, iat: now }),
  );
  assert.equal((await tooLong.json()).error, "invalid_client");
});

Deno.test("token times and expires_in follow the frozen process clock", async () => {
  const at = Date.parse("2020-01-21T00:00:00Z");
  const h = harness({ systemTime: at });
  const res = await h.form("/default/token", { grant_type: "client_credentials", client_id: "c" });
  const body = await res.json();
  assert.equal(body.expires_in, 3600);
  assert.equal(claimsOf(body.access_token).iat, at / 1000);
});
