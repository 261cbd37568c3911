/**
 * Keys that change, against the shipped service: relying parties (openid-client for ID tokens,
 * jose's remote JWKS for access tokens) refetch the JWKS when a token names a kid they have not
 * seen, and refuse a token of a retired key once its grace period is over.
 */
import assert from "node:assert/strict";
import * as client from "openid-client";
import { createRemoteJWKSet, errors, jwtVerify } from "jose";
import { control, withOidc } from "./_test_support.ts";

const REDIRECT = "http://127.0.0.1:1/callback";

Deno.test("rotation: clients follow a new kid; a retired key's tokens fail after the grace", async () => {
  await withOidc({}, async ({ url }) => {
    const issuerUrl = `${url}/rotating`;
    const config = await client.discovery(
      new URL(issuerUrl),
      "app",
      "secret",
      client.ClientSecretBasic("secret"),
      { execute: [client.allowInsecureRequests] },
    );
    const codeFlow = async () => {
      const res = await fetch(
        client.buildAuthorizationUrl(config, { "redirect_uri": REDIRECT, scope: "openid" }),
        { redirect: "manual" },
      );
      await res.body?.cancel();
      const tokens = await client.authorizationCodeGrant(
        config,
        new URL(res.headers.get("location")!),
        { expectedState: client.skipStateCheck },
      );
      return tokens;
    };
    const jwks = createRemoteJWKSet(new URL(`${issuerUrl}/jwks`), { cooldownDuration: 0 });
    const verify = (token: string) => jwtVerify(token, jwks, { issuer: issuerUrl });

    // Before: the first key, kid = issuer id; both clients cache the JWKS.
    const first = await codeFlow();
    assert.equal(JSON.parse(atob(first.id_token!.split(".")[0])).kid, "rotating");
    await verify(first.access_token);
    const jwksRes = await fetch(`${issuerUrl}/jwks`);
    assert.equal(jwksRes.headers.get("cache-control"), "public, max-age=60");
    await jwksRes.body?.cancel();

    // Rotate: a new ES256 key signs from now on; the JWKS holds both.
    const added = await control(url, "POST", "/_mock/keys", {
      issuer: "rotating",
      kid: "k2",
      algorithm: "ES256",
      activate: true,
    });
    assert.deepEqual(added.body, { kid: "k2", algorithm: "ES256", status: "active" });
    const second = await codeFlow();
    const header = JSON.parse(atob(second.id_token!.split(".")[0]));
    assert.deepEqual([header.kid, header.alg], ["k2", "ES256"]);
    // openid-client validated the ID token above with the refetched JWKS; jose does the same.
    assert.equal((await verify(second.access_token)).protectedHeader.kid, "k2");

    // Mint chooses a key by algorithm (the active one first) or kid, or says there is none.
    const mint = (body: Record<string, unknown>) =>
      control(url, "POST", "/_mock/mint", { issuer: "rotating", ...body });
    const es = await mint({ algorithm: "ES256" });
    assert.deepEqual([es.body.kid, es.body.algorithm], ["k2", "ES256"]);
    assert.equal((await mint({ algorithm: "RS256" })).body.kid, "rotating");
    const none = await mint({ algorithm: "PS256" });
    assert.equal(none.status, 404);
    assert.equal(none.body.detail, "issuer rotating has no key of algorithm PS256");
    const mismatch = await mint({ kid: "k2", algorithm: "RS256" });
    assert.equal(mismatch.body.detail, "issuer rotating has no key k2 of algorithm RS256");
    const bad = await mint({ algorithm: "HS256" });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.errors[0].location, "body.algorithm");
    // The old key can still be chosen at mint until retired; then it verifies for the grace only.
    const old = await control(url, "POST", "/_mock/mint", {
      issuer: "rotating",
      kid: "rotating",
      subject: "s",
    });
    assert.equal(old.body.kid, "rotating");
    const retired = await control(url, "POST", "/_mock/keys/retire", {
      issuer: "rotating",
      kid: "rotating",
      graceSeconds: 60,
    });
    assert.equal(retired.body.status, "retired");
    const userinfo = (token: string) =>
      fetch(`${issuerUrl}/userinfo`, { headers: { authorization: `Bearer ${token}` } });
    const during = await userinfo(old.body.token);
    assert.equal(during.status, 200);
    await during.body?.cancel();
    await verify(old.body.token);
    await control(url, "POST", "/_mock/clock/advance", { duration: "61s" });
    const listed = await control(url, "GET", "/_mock/keys?issuer=rotating");
    assert.deepEqual(listed.body.keys.map((k: { kid: string }) => k.kid), ["k2"]);
    const after = await userinfo(old.body.token);
    assert.equal(after.status, 401);
    assert.match(after.headers.get("www-authenticate")!, /unknown kid/);
    await after.body?.cancel();
    // A client whose cached JWKS expires (jose keeps one 10 minutes) refetches and finds no key.
    const refetched = createRemoteJWKSet(new URL(`${issuerUrl}/jwks`));
    await assert.rejects(
      jwtVerify(old.body.token, refetched, { issuer: issuerUrl }),
      errors.JWKSNoMatchingKey,
    );
    const gone = await control(url, "POST", "/_mock/mint", { issuer: "rotating", kid: "rotating" });
    assert.equal(gone.status, 404);
    assert.equal(gone.body.detail, "issuer rotating has no key rotating");
  });
});
