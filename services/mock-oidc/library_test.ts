import assert from "node:assert/strict";
import { createLocalJWKSet, jwtVerify } from "jose";
import * as lib from "./library.ts";
import { MockOidc } from "./library.ts";
import type { MintRequest } from "./control/mint.ts";
import type { CapturedRequest, Endpoint } from "./control/request_log.ts";
import type { Fault, FaultEndpoint } from "./protocol/fault_queue.ts";
import type { TokenCallback } from "./tokens/callback.ts";
import type { Algorithm } from "./keys/algorithms.ts";

// The library's wire types stay those of the routes: each direction must assign (a type error here
// when a field is added to one side only, or its type differs).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const wireTypesAgree: [
  Same<lib.Algorithm, Algorithm>,
  Same<lib.CaptureEndpoint, Endpoint>,
  Same<lib.FaultEndpoint, FaultEndpoint>,
  Same<lib.Fault, Fault>,
  Same<lib.CapturedRequest, CapturedRequest>,
  Same<lib.Scenario, TokenCallback>,
  Same<Omit<lib.MintRequest, "algorithm">, Omit<MintRequest, "algorithm">>,
] = [true, true, true, true, true, true, true];

async function tokenByClientCredentials(oidc: MockOidc, issuer = "default") {
  const res = await fetch(`${oidc.issuerUrl(issuer)}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials&client_id=app&client_secret=s&scope=api",
  });
  return { status: res.status, body: await res.json() };
}

const claimsOf = (jwt: string) => JSON.parse(atob(jwt.split(".")[1]));

Deno.test("the wire types agree (checked by the compiler)", () => {
  assert.ok(wireTypesAgree.every((t) => t));
  assert.ok(new lib.MockOidcError("GET /x", 418, { detail: "d" }).message.endsWith("418: d"));
});

Deno.test("start: issuer URLs on loopback, every control method, stopped by await using", async () => {
  let url: string;
  {
    await using oidc = await MockOidc.start({ config: { interactiveLogin: false } });
    url = oidc.url;
    assert.match(oidc.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(oidc.controlUrl, oidc.url);
    assert.equal(oidc.issuerUrl(), `${oidc.url}/default`);
    assert.equal(oidc.issuerUrl("realms/a b"), `${oidc.url}/realms/a%20b`);
    const discovery = await (await fetch(oidc.discoveryUrl("realms/x"))).json();
    assert.equal(discovery.issuer, `${oidc.url}/realms/x`);

    // mint
    const minted = await oidc.mint({ issuer: "default", subject: "alice", audience: ["api"] });
    assert.equal(minted.claims.sub, "alice");
    assert.equal(claimsOf(minted.token).aud, "api");

    // a scenario shapes the next token only
    const queued = await oidc.enqueueScenario({ issuer: "default", subject: "bob" });
    assert.equal(queued.queueDepth, 1);
    assert.equal(claimsOf((await tokenByClientCredentials(oidc)).body.access_token).sub, "bob");
    assert.notEqual(claimsOf((await tokenByClientCredentials(oidc)).body.access_token).sub, "bob");

    // a fault: listed, answers once, then gone; clearFaults drops what is left
    const fault = await oidc.injectFault({
      endpoint: "token",
      kind: "oauth_error",
      error: "temporarily_unavailable",
      status: 503,
      count: 2,
    });
    assert.deepEqual([fault.remaining, fault.queued], [2, 1]);
    const failed = await tokenByClientCredentials(oidc);
    assert.deepEqual([failed.status, failed.body.error], [503, "temporarily_unavailable"]);
    assert.equal((await oidc.faults())[0].remaining, 1);
    await oidc.clearFaults();
    assert.deepEqual(await oidc.faults(), []);
    assert.equal((await tokenByClientCredentials(oidc)).status, 200);

    // captured requests: take the oldest token request; none left after a short wait
    await oidc.reset();
    await tokenByClientCredentials(oidc);
    assert.equal((await oidc.requests({ endpoint: "token" })).length, 1);
    const taken = await oidc.takeRequest({ endpoint: "token" });
    assert.equal(taken?.method, "POST");
    assert.match(taken?.body ?? "", /grant_type=client_credentials/);
    assert.equal(await oidc.takeRequest({ endpoint: "token", timeoutMs: 10 }), undefined);

    // the clock: frozen, advanced, running again
    const frozen = await oidc.setClock("2030-01-01T00:00:00Z");
    assert.deepEqual(frozen, { frozen: true, now: "2030-01-01T00:00:00.000Z" });
    assert.equal((await oidc.advanceClock("1h")).now, "2030-01-01T01:00:00.000Z");
    assert.equal(claimsOf((await oidc.mint({ issuer: "default" })).token).iat, 1893459600);
    assert.equal((await oidc.setClock(undefined)).frozen, false);
    assert.equal((await oidc.clock()).frozen, false);
  }
  await assert.rejects(fetch(`${url}/default/jwks`), TypeError);
});

Deno.test("rotateKey: the new key signs; the old one stays for its grace, then leaves", async () => {
  await using oidc = await MockOidc.start();
  const jwks = async () => (await (await fetch(`${oidc.issuerUrl("r")}/jwks`)).json()).keys;
  const old = await oidc.mint({ issuer: "r" });
  const { active, retired } = await oidc.rotateKey("r", {
    kid: "k2",
    algorithm: "ES256",
    graceSeconds: 60,
  });
  assert.deepEqual([active.kid, active.status, active.algorithm], ["k2", "active", "ES256"]);
  assert.deepEqual([retired.kid, retired.status], ["r", "retired"]);
  assert.deepEqual((await jwks()).map((k: { kid: string }) => k.kid).sort(), ["k2", "r"]);
  const fresh = await oidc.mint({ issuer: "r" });
  assert.equal(fresh.kid, "k2");
  const issuer = oidc.issuerUrl("r");
  await jwtVerify(old.token, createLocalJWKSet({ keys: await jwks() }), { issuer });
  await oidc.advanceClock("61s");
  assert.deepEqual((await jwks()).map((k: { kid: string }) => k.kid), ["k2"]);
  await assert.rejects(
    jwtVerify(old.token, createLocalJWKSet({ keys: await jwks() }), { issuer }),
    { code: "ERR_JWKS_NO_MATCHING_KEY" },
  );
  // graceSeconds 0 (the default): out at once
  await oidc.rotateKey("r", { kid: "k3" });
  assert.deepEqual((await oidc.keys("r")).map((k) => [k.kid, k.status]), [["k3", "active"]]);
  assert.deepEqual((await jwks()).map((k: { kid: string }) => k.kid), ["k3"]);
});

Deno.test("a refused control call throws MockOidcError with its status and detail", async () => {
  await using oidc = await MockOidc.start();
  await assert.rejects(oidc.mint({ issuer: "_mock" }), (e: lib.MockOidcError) => {
    assert.equal(e.status, 422);
    assert.equal(e.message, "POST /_mock/mint answered 422: validation failed");
    assert.equal(
      (e.body as { errors: { message: string }[] }).errors[0].message,
      "the issuer prefix _mock is reserved",
    );
    return true;
  });
  await assert.rejects(oidc.retireKey("default", "nope", 0), (e: lib.MockOidcError) => {
    assert.equal(e.status, 404);
    assert.equal(e.message, "POST /_mock/keys/retire answered 404: issuer default has no key nope");
    return true;
  });
  await assert.rejects(oidc.advanceClock("soon"), { name: "MockOidcError", status: 422 });
});

Deno.test("start with --control-token: the handle sends it; attach without it is refused", async () => {
  await using oidc = await MockOidc.start({ args: ["--control-token", "sesame"] });
  assert.equal((await oidc.clock()).frozen, false);
  const stranger = MockOidc.attach(oidc.url);
  await assert.rejects(stranger.clock(), (e: lib.MockOidcError) => {
    assert.equal(e.status, 401);
    assert.equal(
      e.message,
      "GET /_mock/clock answered 401: the X-Mock-Control-Token header (or Authorization: Bearer) is required",
    );
    return true;
  });
  const wrong = MockOidc.attach(oidc.url, { controlToken: "other" });
  await assert.rejects(wrong.clock(), {
    message: "GET /_mock/clock answered 401: the control token presented does not match",
  });
  await using friend = MockOidc.attach(`${oidc.url}/`, { controlToken: "sesame" });
  assert.equal(friend.url, oidc.url);
  assert.equal((await friend.mint({ issuer: "default", subject: "x" })).claims.sub, "x");
});

Deno.test("start refuses a setting or configuration mock-oidc refuses, naming it", async () => {
  await assert.rejects(MockOidc.start({ args: ["--signer", "nope"] }), /--signer/);
  await assert.rejects(
    MockOidc.start({ config: { interactiveLogin: "maybe" } }),
    /interactiveLogin/,
  );
});

Deno.test("the README's library example is examples/library_example_test.ts, verbatim", async () => {
  const readme = await Deno.readTextFile(new URL("./README.md", import.meta.url));
  const example = await Deno.readTextFile(
    new URL("./examples/library_example_test.ts", import.meta.url),
  );
  const block = /## In a test, as a library[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme);
  assert.equal(block?.[1], example);
});
