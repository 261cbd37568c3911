import assert from "node:assert/strict";
import { createControlHandler, fakeDeps, jsonRequest } from "./_test_support.ts";
import { FaultQueue, MAX_FAULTS } from "../protocol/fault_queue.ts";

function setup() {
  const faults = new FaultQueue();
  const handle = createControlHandler(fakeDeps({ faults }).deps);
  const inject = (body: unknown) => handle(jsonRequest("POST", "/_mock/faults", body));
  return { faults, handle, inject };
}

const TOKEN_ERROR = { endpoint: "token", kind: "oauth_error", error: "invalid_grant" };

Deno.test("/_mock/faults: POST queues, GET lists, DELETE and reset drop them", async () => {
  const { faults, handle, inject } = setup();
  const res = await inject({ ...TOKEN_ERROR, issuer: "realms/x", count: 3, grantType: "password" });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("x-mock-oidc"), "testing-only");
  const queued = await res.json();
  assert.match(queued.faultId, /^[0-9a-f-]{36}$/);
  assert.equal(queued.remaining, 3);
  assert.equal(queued.queued, 1);
  const list = await (await handle(jsonRequest("GET", "/_mock/faults"))).json();
  assert.deepEqual(list, {
    count: 1,
    faults: [{
      faultId: queued.faultId,
      remaining: 3,
      issuer: "realms/x",
      endpoint: "token",
      grantType: "password",
      kind: "oauth_error",
      error: "invalid_grant",
    }],
  });
  assert.deepEqual(await (await handle(jsonRequest("DELETE", "/_mock/faults"))).json(), {
    count: 0,
  });
  assert.equal(faults.size, 0);
  await (await inject({ endpoint: "jwks", kind: "close" })).body?.cancel();
  assert.equal(faults.size, 1);
  await (await handle(jsonRequest("POST", "/_mock/reset"))).body?.cancel();
  assert.equal(faults.size, 0, "reset drops them");
});

Deno.test("/_mock/faults: count 1 to 1000 and delayMs 0 to 10000 (at, below, above)", async () => {
  const { inject } = setup();
  for (const count of [1, 2, 999, 1000]) {
    const res = await inject({ ...TOKEN_ERROR, count });
    assert.equal(res.status, 200, `count ${count}`);
    assert.equal((await res.json()).remaining, count);
  }
  for (const delayMs of [0, 1, 9_999, 10_000]) {
    const res = await inject({ endpoint: "jwks", kind: "delay", delayMs });
    assert.equal(res.status, 200, `delayMs ${delayMs}`);
    await res.body?.cancel();
  }
  const refused: [unknown, string, string][] = [
    [{ ...TOKEN_ERROR, count: 0 }, "body.count", "must be 1 to 1000"],
    [{ ...TOKEN_ERROR, count: 1001 }, "body.count", "must be 1 to 1000"],
    [{ ...TOKEN_ERROR, count: 1.5 }, "body.count", "expected integer"],
    [{ endpoint: "jwks", kind: "delay", delayMs: -1 }, "body.delayMs", "must be 0 to 10000"],
    [{ endpoint: "jwks", kind: "delay", delayMs: 10_001 }, "body.delayMs", "must be 0 to 10000"],
  ];
  for (const [body, location, message] of refused) {
    const res = await inject(body);
    assert.equal(res.status, 422, JSON.stringify(body));
    const problem = await res.json();
    assert.equal(problem.errors[0].location, location);
    assert.match(problem.errors[0].message, new RegExp(message));
  }
});

Deno.test("/_mock/faults: at most 100 queued (99, 100 accepted; 101 is 409)", async () => {
  const { faults, inject } = setup();
  for (let i = 0; i < MAX_FAULTS - 2; i++) {
    faults.add({ faultId: `f${i}`, endpoint: "jwks", kind: "close", remaining: 1 });
  }
  for (const n of [99, 100]) {
    const res = await inject(TOKEN_ERROR);
    assert.equal(res.status, 200, `the ${n}th`);
    assert.equal((await res.json()).queued, n);
  }
  const over = await inject(TOKEN_ERROR);
  assert.equal(over.status, 409);
  assert.equal(
    (await over.json()).detail,
    "at most 100 faults are queued; DELETE /_mock/faults or reset first",
  );
});

Deno.test("/_mock/faults: each kind's fields, and nothing it does not use", async () => {
  const { inject } = setup();
  const refused: [unknown, string, string][] = [
    [{ kind: "close" }, "body.endpoint", "required property is missing"],
    [{ endpoint: "endsession", kind: "close" }, "body.endpoint", "expected one of"],
    [{ endpoint: "token" }, "body.kind", "required property is missing"],
    [{ endpoint: "token", kind: "explode" }, "body.kind", "expected one of"],
    [{ endpoint: "token", kind: "oauth_error" }, "body.error", "required for kind oauth_error"],
    [{ ...TOKEN_ERROR, error: 'a"b' }, "body.error", "must be RFC 6749 error characters"],
    [{ ...TOKEN_ERROR, status: 302 }, "body.status", "an OAuth error's status is 400 to 599"],
    [{ ...TOKEN_ERROR, status: 600 }, "body.status", "must be 200 to 599"],
    [{ ...TOKEN_ERROR, delayMs: 5 }, "body.delayMs", "not used by kind oauth_error"],
    [{ endpoint: "token", kind: "http" }, "body.status", "required for kind http"],
    [{ endpoint: "token", kind: "delay" }, "body.delayMs", "required for kind delay"],
    [{ endpoint: "jwks", kind: "malformed" }, "body.malformed", "required for kind malformed"],
    [
      { endpoint: "jwks", kind: "malformed", malformed: "xml" },
      "body.malformed",
      "expected one of",
    ],
    [{ endpoint: "jwks", kind: "close", body: "x" }, "body.body", "not used by kind close"],
    [
      { endpoint: "jwks", kind: "close", grantType: "password" },
      "body.grantType",
      "matches the token endpoint only",
    ],
    [{ ...TOKEN_ERROR, issuer: "a//b" }, "body.issuer", "issuer must not have an empty"],
    [{ ...TOKEN_ERROR, other: 1 }, "body.other", "unknown property"],
  ];
  for (const [body, location, message] of refused) {
    const res = await inject(body);
    assert.equal(res.status, 422, JSON.stringify(body));
    const problem = await res.json();
    assert.equal(problem.errors[0].location, location, JSON.stringify(body));
    assert.match(problem.errors[0].message, new RegExp(message), JSON.stringify(body));
  }
});
