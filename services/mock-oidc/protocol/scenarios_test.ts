import assert from "node:assert/strict";
import { basic, claimsOf, harness } from "./_test_support.ts";

Deno.test("one scenario shapes both tokens of one response and is consulted once", async () => {
  const h = harness();
  h.scenarios.push({ issuer: "default", subject: "scenario-user", claims: { x: 1 } });
  const res = await h.form("/default/token", {
    grant_type: "password",
    username: "u",
    client_id: "app",
  });
  const body = await res.json();
  assert.equal(claimsOf(body.access_token).sub, "scenario-user");
  assert.equal(claimsOf(body.id_token).sub, "scenario-user");
  assert.equal(claimsOf(body.id_token).x, 1);
  assert.deepEqual(h.takes, ["default"]);
  const next = await (await h.form("/default/token", {
    grant_type: "password",
    username: "u",
    client_id: "app",
  })).json();
  assert.equal(claimsOf(next.access_token).sub, "u");
});

Deno.test("the refresh grant consults the scenario queue too", async () => {
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
  h.scenarios.push({ issuer: "default", claims: { refreshed: true } });
  const refreshed = await (await h.form("/default/token", {
    grant_type: "refresh_token",
    refresh_token: tokens.refresh_token,
  })).json();
  assert.equal(claimsOf(refreshed.access_token).refreshed, true);
});

Deno.test("configured tokenCallbacks with requestMappings shape tokens of their issuer", async () => {
  const h = harness({
    tokenCallbacks: [{
      issuer: "issuer1",
      expirySeconds: 120,
      requestMappings: [
        { param: "scope", match: "scope1", claims: { sub: "${client_id}-user", aud: ["a1"] } },
        { param: "client_id", match: ".*", typeHeader: "at+jwt", claims: { sub: "any" } },
      ],
    }],
  });
  const first = await (await h.form("/issuer1/token", {
    grant_type: "client_credentials",
    scope: "scope1",
  }, { authorization: basic("svc") })).json();
  assert.equal(first.expires_in, 120);
  assert.equal(claimsOf(first.access_token).sub, "svc-user");
  assert.equal(claimsOf(first.access_token).aud, "a1");
  const second = await (await h.form("/issuer1/token", {
    grant_type: "client_credentials",
    scope: "other",
  }, { authorization: basic("svc") })).json();
  assert.equal(claimsOf(second.access_token).sub, "any");
  const other = await (await h.form("/issuer2/token", {
    grant_type: "client_credentials",
  }, { authorization: basic("svc") })).json();
  assert.equal(other.expires_in, 3600);
  assert.equal(claimsOf(other.access_token).sub, "svc");
});
