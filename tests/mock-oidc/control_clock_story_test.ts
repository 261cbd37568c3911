import assert from "node:assert/strict";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { control, postForm, startMock } from "./_test_support.ts";

Deno.test("story: freeze the clock, mint, advance past exp, token turns inactive", async () => {
  const mock = await startMock();
  try {
    const frozen = await control(mock.url, "PUT", "/_mock/clock", {
      frozen: true,
      instant: "2030-01-01T00:00:00Z",
    });
    assert.deepEqual(frozen.body, { frozen: true, now: "2030-01-01T00:00:00.000Z" });
    assert.equal(frozen.headers.get("x-mock-oidc"), "testing-only");

    const minted = await control(mock.url, "POST", "/_mock/mint", {
      issuer: "story",
      subject: "alice",
      audience: ["api"],
      claims: { role: "admin" },
      expirySeconds: 600,
    });
    assert.equal(minted.status, 200);
    assert.equal(minted.body.kid, "story");
    assert.equal(minted.body.issuer, `${mock.url}/story`);
    assert.equal(minted.body.expiresAt, "2030-01-01T00:10:00.000Z");

    // The minted token verifies against the issuer's JWKS at the frozen instant.
    const jwks = createRemoteJWKSet(new URL(`${mock.url}/story/jwks`));
    const { payload, protectedHeader } = await jwtVerify(minted.body.token, jwks, {
      issuer: `${mock.url}/story`,
      audience: "api",
      currentDate: new Date("2030-01-01T00:00:00Z"),
    });
    assert.equal(payload.sub, "alice");
    assert.equal(payload.role, "admin");
    assert.equal(protectedHeader.kid, "story");
    assert.deepEqual(payload, minted.body.claims);

    const bearer = { authorization: `Bearer ${minted.body.token}` };
    const userinfo = await fetch(`${mock.url}/story/userinfo`, { headers: bearer });
    assert.equal(userinfo.status, 200);
    assert.equal((await userinfo.json()).sub, "alice");
    const active = await postForm(`${mock.url}/story/introspect`, `token=${minted.body.token}`, {
      authorization: `Basic ${btoa("client:secret")}`,
    });
    assert.equal(active.body.active, true);

    const advanced = await control(mock.url, "POST", "/_mock/clock/advance", { duration: "11m" });
    assert.deepEqual(advanced.body, { frozen: true, now: "2030-01-01T00:11:00.000Z" });

    const expired = await postForm(`${mock.url}/story/introspect`, `token=${minted.body.token}`, {
      authorization: `Basic ${btoa("client:secret")}`,
    });
    assert.deepEqual(expired.body, { active: false });
    const rejected = await fetch(`${mock.url}/story/userinfo`, { headers: bearer });
    assert.equal(rejected.status, 401);
    await rejected.body?.cancel();

    // Reset unfreezes the clock but keeps the key: JWKS fetched before still verifies.
    const reset = await control(mock.url, "POST", "/_mock/reset");
    assert.deepEqual(reset.body, { reset: true });
    assert.equal((await control(mock.url, "GET", "/_mock/clock")).body.frozen, false);
    const fresh = await control(mock.url, "POST", "/_mock/mint", { issuer: "story" });
    await jwtVerify(fresh.body.token, jwks, { issuer: `${mock.url}/story` });
  } finally {
    await mock.stop();
  }
});

Deno.test("POST /_mock/mint derives iss from X-Forwarded-* and honours issuerUrl, kind and typ", async () => {
  const mock = await startMock();
  try {
    const forwarded = await control(mock.url, "POST", "/_mock/mint", { issuer: "fw" }, {
      "x-forwarded-proto": "https",
      "x-forwarded-host": "idp.example",
    });
    assert.equal(forwarded.body.issuer, "https://idp.example/fw");
    assert.equal(forwarded.body.claims.iss, "https://idp.example/fw");
    assert.equal(forwarded.body.claims.aud, undefined);

    const custom = await control(mock.url, "POST", "/_mock/mint", {
      issuer: "fw",
      issuerUrl: "https://elsewhere.example/tenant",
      kind: "id_token",
      typ: "at+jwt",
      clientId: "spa",
    });
    assert.equal(custom.body.issuer, "https://elsewhere.example/tenant");
    const header = JSON.parse(
      atob(custom.body.token.split(".")[0].replace(/-/g, "+").replace(/_/g, "/")),
    );
    assert.equal(header.typ, "at+jwt");
    assert.equal(header.kid, "fw");

    // An at+jwt access token self-verifies at userinfo.
    const atJwt = await control(mock.url, "POST", "/_mock/mint", { issuer: "fw", typ: "at+jwt" });
    const userinfo = await fetch(`${mock.url}/fw/userinfo`, {
      headers: { authorization: `Bearer ${atJwt.body.token}` },
    });
    assert.equal(userinfo.status, 200);
    await userinfo.body?.cancel();

    const reserved = await control(mock.url, "POST", "/_mock/mint", { issuer: "_mock" });
    assert.equal(reserved.status, 422);
    assert.equal(reserved.headers.get("content-type"), "application/problem+json");
    assert.equal(reserved.body.errors[0].location, "body.issuer");
  } finally {
    await mock.stop();
  }
});
