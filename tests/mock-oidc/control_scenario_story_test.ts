import assert from "node:assert/strict";
import * as oidc from "openid-client";
import { decodeJwt } from "jose";
import { control, startMock } from "./_test_support.ts";

Deno.test("story: an enqueued scenario alters exactly one token of its issuer", async () => {
  const mock = await startMock();
  try {
    const config = await oidc.discovery(
      new URL(`${mock.url}/scen`),
      "client-1",
      "secret",
      undefined,
      { execute: [oidc.allowInsecureRequests] },
    );
    const other = await control(mock.url, "POST", "/_mock/scenarios", {
      issuer: "elsewhere",
      subject: "nobody",
    });
    assert.equal(other.body.queueDepth, 1);
    const queued = await control(mock.url, "POST", "/_mock/scenarios", {
      issuer: "scen",
      subject: "alice",
      audience: [],
      claims: { tier: "gold" },
      expirySeconds: 60,
    });
    assert.equal(queued.status, 200);
    assert.equal(typeof queued.body.scenarioId, "string");
    assert.equal(queued.body.queueDepth, 2);

    const first = decodeJwt(
      (await oidc.clientCredentialsGrant(config, { scope: "read" })).access_token,
    );
    assert.equal(first.sub, "alice");
    assert.equal(first.tier, "gold");
    // The explicit empty audience is honoured: no audience at all.
    assert.ok(first.aud === undefined || (Array.isArray(first.aud) && first.aud.length === 0));
    assert.equal(first.exp! - first.iat!, 60);

    const second = decodeJwt(
      (await oidc.clientCredentialsGrant(config, { scope: "read" })).access_token,
    );
    assert.notEqual(second.sub, "alice");
    assert.equal(second.tier, undefined);

    // The other issuer's scenario is untouched and listed without being consumed.
    const listed = await control(mock.url, "GET", "/_mock/scenarios");
    assert.deepEqual(listed.body, {
      queueDepth: 1,
      scenarios: [{ issuer: "elsewhere", kind: "default" }],
    });
    assert.deepEqual((await control(mock.url, "DELETE", "/_mock/scenarios")).body, {
      queueDepth: 0,
    });
  } finally {
    await mock.stop();
  }
});

Deno.test("story: a scenario with requestMappings applies claims when the parameter matches", async () => {
  const mock = await startMock();
  try {
    await control(mock.url, "POST", "/_mock/scenarios", {
      issuer: "rm",
      requestMappings: [{ param: "scope", match: "admin.*", claims: { admin: true } }],
    });
    const listed = await control(mock.url, "GET", "/_mock/scenarios");
    assert.deepEqual(listed.body.scenarios, [{ issuer: "rm", kind: "requestMapping" }]);
    const res = await fetch(`${mock.url}/rm/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials&client_id=c&client_secret=s&scope=admin.write",
    });
    assert.equal(res.status, 200);
    const claims = decodeJwt((await res.json()).access_token);
    assert.equal(claims.admin, true);
  } finally {
    await mock.stop();
  }
});

Deno.test("POST /_mock/scenarios rejects unknown properties and reserved issuers with 422", async () => {
  const mock = await startMock();
  try {
    const unknown = await control(mock.url, "POST", "/_mock/scenarios", { issuer: "a", typo: 1 });
    assert.equal(unknown.status, 422);
    assert.equal(unknown.body.errors[0].location, "body.typo");
    const reserved = await control(mock.url, "POST", "/_mock/scenarios", { issuer: "_mockx" });
    assert.equal(reserved.body.errors[0].location, "body.issuer");
    const malformed = await control(mock.url, "POST", "/_mock/scenarios", "{not json");
    assert.equal(malformed.status, 400);
    assert.equal(malformed.headers.get("content-type"), "application/problem+json");
  } finally {
    await mock.stop();
  }
});

Deno.test("story: the refresh_token grant consumes a queued scenario too", async () => {
  const mock = await startMock();
  try {
    const config = await oidc.discovery(
      new URL(`${mock.url}/refresh`),
      "client-1",
      "secret",
      undefined,
      { execute: [oidc.allowInsecureRequests] },
    );
    const verifier = oidc.randomPKCECodeVerifier();
    const redirectUri = "http://127.0.0.1/callback";
    const authorize = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: "openid offline_access",
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      state: "st",
    });
    const redirect = await fetch(authorize, { redirect: "manual" });
    await redirect.body?.cancel();
    const callback = new URL(redirect.headers.get("location")!);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: "st",
    });
    assert.ok(tokens.refresh_token);

    await control(mock.url, "POST", "/_mock/scenarios", {
      issuer: "refresh",
      subject: "refreshed-bob",
    });
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    assert.equal(decodeJwt(refreshed.access_token).sub, "refreshed-bob");
    assert.equal((await control(mock.url, "GET", "/_mock/scenarios")).body.queueDepth, 0);
    const again = await oidc.refreshTokenGrant(
      config,
      refreshed.refresh_token ?? tokens.refresh_token!,
    );
    assert.notEqual(decodeJwt(again.access_token).sub, "refreshed-bob");
  } finally {
    await mock.stop();
  }
});
