import assert from "node:assert/strict";
import { disabledControlPlane } from "./control_plane.ts";
import { createControlHandler, fakeDeps, jsonRequest } from "./_test_support.ts";
import { localInfo, withTimeout } from "@svc/shared/http";

Deno.test("every /_mock response carries X-Mock-Oidc: testing-only, errors included", async () => {
  const handle = createControlHandler(fakeDeps().deps);
  for (
    const req of [
      jsonRequest("GET", "/_mock/clock"),
      jsonRequest("GET", "/_mock/nope"),
      jsonRequest("POST", "/_mock/mint", "{"),
    ]
  ) {
    const res = await handle(req);
    await res.body?.cancel();
    assert.equal(res.headers.get("x-mock-oidc"), "testing-only");
  }
});

Deno.test("GET /_mock/clock reports the wall clock, PUT freezes at an instant and unfreezes", async (t) => {
  const handle = createControlHandler(fakeDeps().deps);
  await t.step("initial state", async () => {
    const res = await handle(jsonRequest("GET", "/_mock/clock"));
    assert.deepEqual(await res.json(), { frozen: false, now: "2030-01-01T00:00:00.000Z" });
  });
  await t.step("freeze", async () => {
    const res = await handle(
      jsonRequest("PUT", "/_mock/clock", { frozen: true, instant: "2031-05-06T07:08:09Z" }),
    );
    assert.deepEqual(await res.json(), { frozen: true, now: "2031-05-06T07:08:09.000Z" });
  });
  await t.step("unfreeze", async () => {
    const res = await handle(jsonRequest("PUT", "/_mock/clock", { frozen: false }));
    assert.equal((await res.json()).frozen, false);
  });
});

Deno.test("PUT /_mock/clock rejects a missing or invalid instant with 422 at body.instant", async () => {
  const handle = createControlHandler(fakeDeps().deps);
  for (const body of [{ frozen: true }, { frozen: true, instant: "yesterday" }]) {
    const res = await handle(jsonRequest("PUT", "/_mock/clock", body));
    assert.equal(res.status, 422);
    assert.equal(res.headers.get("content-type"), "application/problem+json");
    const problem = await res.json();
    assert.equal(problem.errors[0].location, "body.instant");
  }
});

Deno.test("POST /_mock/clock/advance freezes then moves forward by a Go duration", async () => {
  const handle = createControlHandler(fakeDeps().deps);
  const res = await handle(jsonRequest("POST", "/_mock/clock/advance", { duration: "1h1m" }));
  assert.deepEqual(await res.json(), { frozen: true, now: "2030-01-01T01:01:00.000Z" });
  const again = await handle(jsonRequest("POST", "/_mock/clock/advance", { duration: "90s" }));
  assert.equal((await again.json()).now, "2030-01-01T01:02:30.000Z");
});

Deno.test("POST /_mock/clock/advance answers 422 at body.duration for a bad or negative duration", async () => {
  const handle = createControlHandler(fakeDeps().deps);
  for (const duration of ["soon", "-5m", "5"]) {
    const res = await handle(jsonRequest("POST", "/_mock/clock/advance", { duration }));
    assert.equal(res.status, 422, duration);
    const problem = await res.json();
    assert.deepEqual(problem.errors.map((e: { location: string }) => e.location), [
      "body.duration",
    ]);
    assert.equal(problem.errors[0].value, duration);
  }
});

Deno.test("control bodies: malformed JSON is 400, unknown property and wrong type are 422", async () => {
  const handle = createControlHandler(fakeDeps().deps);
  const malformed = await handle(jsonRequest("POST", "/_mock/clock/advance", "{nope"));
  assert.equal(malformed.status, 400);
  assert.equal((await malformed.json()).status, 400);
  const unknown = await handle(jsonRequest("POST", "/_mock/mint", { issuer: "a", colour: 1 }));
  assert.equal(unknown.status, 422);
  assert.equal((await unknown.json()).errors[0].location, "body.colour");
  const wrongType = await handle(jsonRequest("POST", "/_mock/mint", { issuer: 5 }));
  assert.equal((await wrongType.json()).errors[0].location, "body.issuer");
  const array = await handle(jsonRequest("POST", "/_mock/mint", [1]));
  assert.equal(array.status, 422);
  await array.body?.cancel();
});

Deno.test("POST /_mock/mint applies the documented defaults", async () => {
  const { deps, issued } = fakeDeps();
  const res = await createControlHandler(deps)(jsonRequest("POST", "/_mock/mint", { issuer: "a" }));
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.deepEqual(Object.keys(body).sort(), [
    "algorithm",
    "claims",
    "expiresAt",
    "issuer",
    "kid",
    "token",
    "tokenType",
  ]);
  assert.equal(body.tokenType, "Bearer");
  assert.equal(body.claims.cnf, undefined);
  assert.equal(body.issuer, "http://mock.test/a");
  assert.equal(issued[0].kind, "access_token");
  assert.equal(issued[0].clientId, "default");
  assert.equal(issued[0].typ, "JWT");
  assert.equal(issued[0].expirySeconds, 3600);
  assert.equal(issued[0].audience, null);
  assert.match(issued[0].subject!, /^[0-9a-f-]{36}$/);
});

Deno.test("POST /_mock/mint rejects unreachable issuer ids with 422, by segment", async () => {
  const handle = createControlHandler(fakeDeps().deps);
  const nine = "a/b/c/d/e/f/g/h/i";
  for (
    const [issuer, message] of [
      ["_mock", "the issuer prefix _mock is reserved"],
      ["_mockish", "the issuer prefix _mock is reserved"],
      ["realms/_mock", "the issuer prefix _mock is reserved"],
      ["a//b", "issuer must not have an empty path segment"],
      ["realms/x/", "issuer must not have an empty path segment"],
      ["a/../b", "issuer must not have a dot segment"],
      [nine, "issuer must have at most 8 path segments"],
      [`a/${"x".repeat(257)}`, "issuer path segments must be at most 256 characters"],
      ["", "issuer must not be empty"],
    ]
  ) {
    const res = await handle(jsonRequest("POST", "/_mock/mint", { issuer }));
    assert.equal(res.status, 422, issuer);
    const body = await res.json();
    assert.equal(body.errors[0].location, "body.issuer");
    assert.equal(body.errors[0].message, message, issuer);
  }
});

Deno.test("POST /_mock/mint takes issuer ids of several segments, up to 8", async () => {
  const handle = createControlHandler(fakeDeps().deps);
  for (const issuer of ["realms/x", "tenant1/v2.0", "a/b/c/d/e/f/g/h", "a/b/c/d/e/f/g"]) {
    const res = await handle(jsonRequest("POST", "/_mock/mint", { issuer }));
    assert.equal(res.status, 200, issuer);
    await res.body?.cancel();
  }
});

Deno.test("scenarios: enqueue reports id and depth, list is non-destructive, delete flushes", async () => {
  const { deps } = fakeDeps();
  const handle = createControlHandler(deps);
  const first = await (await handle(jsonRequest("POST", "/_mock/scenarios", { issuer: "a" })))
    .json();
  assert.equal(first.queueDepth, 1);
  assert.equal(typeof first.scenarioId, "string");
  await (await handle(jsonRequest("POST", "/_mock/scenarios", {
    issuer: "b",
    requestMappings: [{ param: "scope", match: "*", claims: { x: 1 } }],
  }))).body?.cancel();
  const listed = await (await handle(jsonRequest("GET", "/_mock/scenarios"))).json();
  assert.deepEqual(listed, {
    queueDepth: 2,
    scenarios: [{ issuer: "a", kind: "default" }, { issuer: "b", kind: "requestMapping" }],
  });
  assert.equal(deps.scenarios.depth, 2);
  const flushed = await (await handle(jsonRequest("DELETE", "/_mock/scenarios"))).json();
  assert.deepEqual(flushed, { queueDepth: 0 });
});

Deno.test("POST /_mock/scenarios names the location of a bad request mapping", async () => {
  const handle = createControlHandler(fakeDeps().deps);
  const res = await handle(jsonRequest("POST", "/_mock/scenarios", {
    issuer: "a",
    requestMappings: [{ param: "scope", match: "*" }, { param: 1, match: "x", extra: true }],
  }));
  assert.equal(res.status, 422);
  const locations = (await res.json()).errors.map((e: { location: string }) => e.location);
  assert.deepEqual(locations, ["body.requestMappings[1].param", "body.requestMappings[1].extra"]);
});

Deno.test("reset flushes scenarios and captured requests and unfreezes the clock", async () => {
  const { deps } = fakeDeps();
  const handle = createControlHandler(deps);
  deps.scenarios.enqueue({ issuer: "a" });
  deps.clock.freeze(0);
  const res = await handle(jsonRequest("POST", "/_mock/reset"));
  assert.deepEqual(await res.json(), { reset: true });
  assert.equal(deps.scenarios.depth, 0);
  assert.equal(deps.clock.state().frozen, false);
});

Deno.test("control token: missing or wrong token is 401, the right one passes", async () => {
  const handle = createControlHandler(fakeDeps({ controlToken: "s3cret" }).deps);
  const missing = await handle(jsonRequest("GET", "/_mock/clock"));
  assert.equal(missing.status, 401);
  assert.equal(missing.headers.get("content-type"), "application/problem+json");
  await missing.body?.cancel();
  const wrong = await handle(
    jsonRequest("GET", "/_mock/clock", undefined, { "x-mock-control-token": "s3cret!" }),
  );
  assert.equal(wrong.status, 401);
  await wrong.body?.cancel();
  const right = await handle(
    jsonRequest("GET", "/_mock/clock", undefined, { "x-mock-control-token": "s3cret" }),
  );
  assert.equal(right.status, 200);
  await right.body?.cancel();
});

Deno.test("unknown control path is 404, wrong method is 405 with Allow", async () => {
  const handle = createControlHandler(fakeDeps().deps);
  const missing = await handle(jsonRequest("GET", "/_mock/nothing"));
  assert.equal(missing.status, 404);
  await missing.body?.cancel();
  const wrong = await handle(jsonRequest("DELETE", "/_mock/clock"));
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers.get("allow"), "GET, HEAD, PUT");
  await wrong.body?.cancel();
});

Deno.test("a disabled control plane answers 404 problems", async () => {
  const res = disabledControlPlane(jsonRequest("GET", "/_mock/clock"));
  assert.equal(res.status, 404);
  assert.equal(res.headers.get("content-type"), "application/problem+json");
  await res.body?.cancel();
});

Deno.test("POST /_mock/requests/take returns 404 after timeoutMs and the entry when one arrives", async () => {
  const { deps } = fakeDeps();
  const handle = createControlHandler(deps);
  const miss = await handle(jsonRequest("POST", "/_mock/requests/take", { timeoutMs: 10 }));
  assert.equal(miss.status, 404);
  assert.equal(miss.headers.get("content-type"), "application/problem+json");
  await miss.body?.cancel();
  const pending = handle(
    jsonRequest("POST", "/_mock/requests/take", { endpoint: "token", timeoutMs: 1000 }),
  );
  deps.requests.append({
    id: "1",
    receivedAt: new Date(0).toISOString(),
    issuer: "a",
    method: "POST",
    path: "/a/token",
    url: "http://x/a/token",
  });
  const hit = await pending;
  assert.equal(hit.status, 200);
  assert.equal((await hit.json()).id, "1");
});

Deno.test("POST /_mock/requests/take validates endpoint and timeoutMs", async () => {
  const handle = createControlHandler(fakeDeps().deps);
  const res = await handle(
    jsonRequest("POST", "/_mock/requests/take", { endpoint: "discovery", timeoutMs: -1 }),
  );
  assert.equal(res.status, 422);
  const locations = (await res.json()).errors.map((e: { location: string }) => e.location);
  assert.deepEqual(locations, ["body.endpoint", "body.timeoutMs"]);
});

Deno.test("GET /_mock/requests filters without removing, DELETE clears", async () => {
  const { deps } = fakeDeps();
  const handle = createControlHandler(deps);
  for (const path of ["/a/token", "/b/jwks"]) {
    deps.requests.append({
      id: path,
      receivedAt: new Date(0).toISOString(),
      issuer: path.split("/")[1],
      method: "GET",
      path,
      url: `http://x${path}`,
    });
  }
  const all = await (await handle(jsonRequest("GET", "/_mock/requests"))).json();
  assert.equal(all.count, 2);
  const jwks = await (await handle(jsonRequest("GET", "/_mock/requests?endpoint=jwks"))).json();
  assert.deepEqual(jwks.requests.map((r: { id: string }) => r.id), ["/b/jwks"]);
  const bad = await handle(jsonRequest("GET", "/_mock/requests?endpoint=nope"));
  assert.equal((await bad.json()).errors[0].location, "query.endpoint");
  assert.deepEqual(await (await handle(jsonRequest("DELETE", "/_mock/requests"))).json(), {
    cleared: true,
  });
  assert.equal(deps.requests.size, 0);
});

Deno.test("take timeoutMs is accepted from 0 to 3600000 and rejected just outside", async () => {
  const handle = createControlHandler(fakeDeps().deps);
  for (const [timeoutMs, status] of [[-1, 422], [0, 404], [3_600_001, 422]]) {
    const res = await handle(jsonRequest("POST", "/_mock/requests/take", { timeoutMs }));
    assert.equal(res.status, status, String(timeoutMs));
    await res.body?.cancel();
  }
  const { deps } = fakeDeps();
  deps.requests.append({
    id: "1",
    receivedAt: new Date(0).toISOString(),
    issuer: "a",
    method: "GET",
    path: "/a/jwks",
    url: "http://x/a/jwks",
  });
  const atBound = await createControlHandler(deps)(
    jsonRequest("POST", "/_mock/requests/take", { timeoutMs: 3_600_000 }),
  );
  assert.equal(atBound.status, 200);
  await atBound.body?.cancel();
});

Deno.test("control bodies up to 1 MiB are read, larger ones are 413 problems", async () => {
  const handle = createControlHandler(fakeDeps().deps);
  const pad = (size: number) => `{"issuer":"a","claims":{"p":"${"x".repeat(size - 32)}"}}`;
  const atLimit = await handle(jsonRequest("POST", "/_mock/mint", pad(1024 * 1024)));
  assert.equal(atLimit.status, 200);
  await atLimit.body?.cancel();
  const over = await handle(jsonRequest("POST", "/_mock/mint", pad(1024 * 1024 + 1)));
  assert.equal(over.status, 413);
  assert.equal(over.headers.get("content-type"), "application/problem+json");
  await over.body?.cancel();
});

Deno.test("POST /_mock/mint on a dedicated listener names the API origin unless forwarded", async () => {
  const { deps } = fakeDeps({ apiOrigin: () => "http://127.0.0.1:8080" });
  const handle = createControlHandler(deps);
  const plain = await (await handle(jsonRequest("POST", "/_mock/mint", { issuer: "a" }))).json();
  assert.equal(plain.issuer, "http://127.0.0.1:8080/a");
  const forwarded = await (await handle(
    jsonRequest("POST", "/_mock/mint", { issuer: "a" }, { "x-forwarded-host": "idp.example" }),
  )).json();
  assert.equal(forwarded.issuer, "http://mock.test/a");
});

Deno.test("a take outlives a shorter request timeout and answers its own 404", async () => {
  const { deps } = fakeDeps();
  const handle = withTimeout(createControlHandler(deps), { ms: 20 });
  const res = await handle(
    jsonRequest("POST", "/_mock/requests/take", { timeoutMs: 60 }),
    localInfo(),
  );
  assert.equal(res.status, 404);
});

Deno.test("a take whose client went away ends, so a later request stays in the log", async () => {
  const { deps } = fakeDeps();
  const handle = withTimeout(createControlHandler(deps), { ms: 60_000 });
  const client = new AbortController();
  const req = new Request(jsonRequest("POST", "/_mock/requests/take", { timeoutMs: 60_000 }), {
    signal: client.signal,
  });
  const answer = handle(req, localInfo());
  // real clock: the take is waiting before the client aborts (an abort before it waits is a weaker case)
  await new Promise((resolve) => setTimeout(resolve, 10));
  client.abort();
  assert.equal((await answer).status, 499);
  deps.requests.append({
    id: "1",
    receivedAt: new Date(0).toISOString(),
    issuer: "a",
    method: "GET",
    path: "/a/jwks",
    url: "http://x/a/jwks",
  });
  assert.equal(deps.requests.size, 1);
});

Deno.test("POST /_mock/scenarios refuses a catastrophic request-mapping pattern with 422", async () => {
  const handle = createControlHandler(fakeDeps().deps);
  const res = await handle(jsonRequest("POST", "/_mock/scenarios", {
    issuer: "a",
    requestMappings: [{ param: "scope", match: "(a+)+$" }, { param: "x", match: "ok-[0-9]+" }],
  }));
  assert.equal(res.status, 422);
  const body = await res.json();
  assert.deepEqual(body.errors.map((e: { location: string }) => e.location), [
    "body.requestMappings[0].match",
  ]);
  assert.match(body.errors[0].message, /repeated group/);
});

Deno.test("claims nested deeper than 32 levels are 422 on scenarios and mint; 32 pass", async () => {
  const handle = createControlHandler(fakeDeps().deps);
  const nest = (depth: number) => {
    let claims: unknown = "x";
    for (let i = 0; i < depth; i++) claims = { a: claims };
    return claims;
  };
  for (const depth of [32, 33, 5000, 100_000]) {
    const scenario = await handle(
      jsonRequest("POST", "/_mock/scenarios", { issuer: "a", claims: nest(depth) }),
    );
    const mint = await handle(
      jsonRequest("POST", "/_mock/mint", { issuer: "a", claims: nest(depth) }),
    );
    const expected = depth <= 32 ? [200, 200] : [422, 422];
    assert.deepEqual([scenario.status, mint.status], expected, `depth ${depth}`);
    if (depth > 32) {
      assert.equal((await scenario.json()).errors[0].location, "body.claims");
      await mint.body?.cancel();
    } else {
      await scenario.body?.cancel();
      await mint.body?.cancel();
    }
  }
});

Deno.test("POST /_mock/mint refuses issuers no URL can reach with 422", async () => {
  const handle = createControlHandler(fakeDeps().deps);
  for (const issuer of ["a\nb", "a\u0000b", "..", "."]) {
    const res = await handle(jsonRequest("POST", "/_mock/mint", { issuer }));
    assert.equal(res.status, 422, JSON.stringify(issuer));
    assert.equal((await res.json()).errors[0].location, "body.issuer");
  }
});

Deno.test("mutating /_mock routes accept only JSON bodies (415 otherwise); empty bodies pass", async () => {
  const handle = createControlHandler(fakeDeps().deps);
  for (
    const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", ""]
  ) {
    const headers: Record<string, string> = type ? { "content-type": type } : {};
    const res = await handle(
      new Request("http://x/_mock/mint", { method: "POST", headers, body: '{"issuer":"a"}' }),
    );
    assert.equal(res.status, 415, type);
    await res.body?.cancel();
  }
  const withCharset = await handle(
    new Request("http://x/_mock/mint", {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8" },
      body: '{"issuer":"a"}',
    }),
  );
  assert.equal(withCharset.status, 200);
  await withCharset.body?.cancel();
  const reset = await handle(new Request("http://x/_mock/reset", { method: "POST" }));
  assert.equal(reset.status, 200);
  await reset.body?.cancel();
});
