/**
 * Failures on demand against the shipped service: a real client meets an injected OAuth error,
 * the captured-request log names the fault, a closed connection fails the client's read, and
 * reset drops what is left.
 */
import assert from "node:assert/strict";
import * as client from "openid-client";
import { control, withOidc } from "./_test_support.ts";

Deno.test("failures on demand: openid-client meets them, the log names them, reset drops them", async () => {
  await withOidc({}, async ({ url }) => {
    const config = await client.discovery(
      new URL(`${url}/realms/x`),
      "app",
      "secret",
      client.ClientSecretBasic("secret"),
      { execute: [client.allowInsecureRequests] },
    );
    const injected = await control(url, "POST", "/_mock/faults", {
      issuer: "realms/x",
      endpoint: "token",
      grantType: "client_credentials",
      kind: "oauth_error",
      error: "invalid_grant",
      errorDescription: "planned refusal",
    });
    assert.equal(injected.status, 200);
    await assert.rejects(
      client.clientCredentialsGrant(config, { scope: "api" }),
      (err: client.ResponseBodyError) =>
        err.error === "invalid_grant" && err.status === 400 &&
        err.error_description === "planned refusal",
    );
    // Used up: the next call is answered as usual.
    const tokens = await client.clientCredentialsGrant(config, { scope: "api" });
    assert.ok(tokens.access_token);
    const taken = await control(url, "POST", "/_mock/requests/take", {
      issuer: "realms/x",
      endpoint: "token",
    });
    assert.equal(taken.status, 200);
    assert.equal(taken.body.fault, injected.body.faultId);
    const next = await control(url, "POST", "/_mock/requests/take", {
      issuer: "realms/x",
      endpoint: "token",
    });
    assert.equal(next.body.fault, undefined);

    // A closed connection: the status line comes, the body never does.
    await control(url, "POST", "/_mock/faults", { endpoint: "jwks", kind: "close" });
    const res = await fetch(`${url}/default/jwks`);
    assert.ok(res.headers.get("x-mock-oidc-fault"));
    await assert.rejects(res.text());
    // The service keeps serving.
    const jwks = await (await fetch(`${url}/default/jwks`)).json();
    assert.equal(jwks.keys.length, 1);

    await control(url, "POST", "/_mock/faults", { endpoint: "jwks", kind: "close", count: 5 });
    assert.equal((await control(url, "GET", "/_mock/faults")).body.count, 1);
    assert.equal((await control(url, "POST", "/_mock/reset")).status, 200);
    assert.deepEqual((await control(url, "GET", "/_mock/faults")).body, { count: 0, faults: [] });
    const after = await fetch(`${url}/default/jwks`);
    assert.equal(after.status, 200);
    await after.body?.cancel();
  });
});
