import assert from "node:assert/strict";
import { createControlHandler, fakeDeps, jsonRequest } from "./_test_support.ts";
import { createClock } from "../clock.ts";
import bundled from "../keys/bundled_keys.json" with { type: "json" };
import { createKeyStore } from "../keys/key_store.ts";
import { createKeyRing } from "../keys/key_ring.ts";
import { generatePrivateJwk } from "../keys/key_material.ts";

function setup() {
  const clock = createClock({ frozenAt: Date.parse("2030-01-01T00:00:00Z") });
  const store = createKeyStore({
    initialKeys: bundled.keys.map((jwk) => ({ jwk, alg: "RS256" as const })),
    spareKeys: 0,
  });
  const ec = generatePrivateJwk("ES256");
  const keys = createKeyRing(store, { clock, algorithm: "ES256", generate: () => ec });
  return createControlHandler(fakeDeps({ keys }).deps);
}

Deno.test("/_mock/keys: add, activate, retire and list, with their answers", async () => {
  const handle = setup();
  const add = await handle(jsonRequest("POST", "/_mock/keys", { issuer: "realms/x", kid: "k2" }));
  assert.equal(add.status, 200);
  assert.deepEqual(await add.json(), { kid: "k2", algorithm: "ES256", status: "published" });
  const act = await handle(
    jsonRequest("POST", "/_mock/keys/activate", { issuer: "realms/x", kid: "k2" }),
  );
  assert.equal((await act.json()).status, "active");
  const retire = await handle(
    jsonRequest("POST", "/_mock/keys/retire", {
      issuer: "realms/x",
      kid: "realms/x",
      graceSeconds: 30,
    }),
  );
  assert.deepEqual(await retire.json(), {
    kid: "realms/x",
    algorithm: "RS256",
    status: "retired",
    retiredUntil: "2030-01-01T00:00:30.000Z",
  });
  const list = await (await handle(jsonRequest("GET", "/_mock/keys?issuer=realms%2Fx"))).json();
  assert.deepEqual(list.keys.map((k: { kid: string; status: string }) => [k.kid, k.status]), [
    ["k2", "active"],
    ["realms/x", "retired"],
  ]);
  const conflict = await handle(
    jsonRequest("POST", "/_mock/keys/retire", { issuer: "realms/x", kid: "k2", graceSeconds: 1 }),
  );
  assert.equal(conflict.status, 409);
  assert.equal((await conflict.json()).detail, "key k2 signs for realms/x; activate another first");
  const missing = await handle(
    jsonRequest("POST", "/_mock/keys/activate", { issuer: "a", kid: "z" }),
  );
  assert.equal(missing.status, 404);
  assert.equal((await missing.json()).detail, "issuer a has no key z");
});

Deno.test("/_mock/keys: graceSeconds 0 to 2592000 (at, below, above); kid and body rules", async () => {
  const handle = setup();
  for (const [i, grace] of [0, 1, 2_591_999, 2_592_000].entries()) {
    await (await handle(jsonRequest("POST", "/_mock/keys", { issuer: "g", kid: `k${i}` }))).body
      ?.cancel();
    const res = await handle(
      jsonRequest("POST", "/_mock/keys/retire", { issuer: "g", kid: `k${i}`, graceSeconds: grace }),
    );
    assert.equal(res.status, 200, `grace ${grace}`);
    await res.body?.cancel();
  }
  const refused: [string, unknown, string, string][] = [
    [
      "/_mock/keys/retire",
      { issuer: "g", kid: "g", graceSeconds: -1 },
      "body.graceSeconds",
      "must be 0 to 2592000",
    ],
    [
      "/_mock/keys/retire",
      { issuer: "g", kid: "g", graceSeconds: 2_592_001 },
      "body.graceSeconds",
      "must be 0 to 2592000",
    ],
    [
      "/_mock/keys/retire",
      { issuer: "g", kid: "g" },
      "body.graceSeconds",
      "required property is missing",
    ],
    ["/_mock/keys", { issuer: "g", kid: "" }, "body.kid", "must not be empty"],
    [
      "/_mock/keys",
      { issuer: "g", kid: "x".repeat(129) },
      "body.kid",
      "must be at most 128 characters",
    ],
    [
      "/_mock/keys",
      { issuer: "g", kid: "a\nb" },
      "body.kid",
      "must not contain control characters",
    ],
    ["/_mock/keys", { issuer: "g", algorithm: "HS256" }, "body.algorithm", "expected one of"],
    ["/_mock/keys", { issuer: "_mock" }, "body.issuer", "the issuer prefix _mock is reserved"],
    ["/_mock/keys/activate", { issuer: "g" }, "body.kid", "required property is missing"],
  ];
  for (const [path, body, location, message] of refused) {
    const res = await handle(jsonRequest("POST", path, body));
    assert.equal(res.status, 422, JSON.stringify(body));
    const problem = await res.json();
    assert.equal(problem.errors[0].location, location);
    assert.match(problem.errors[0].message, new RegExp(message));
  }
  const k128 = await handle(
    jsonRequest("POST", "/_mock/keys", { issuer: "g2", kid: "x".repeat(128) }),
  );
  assert.equal(k128.status, 200);
  await k128.body?.cancel();
  const noIssuer = await handle(jsonRequest("GET", "/_mock/keys"));
  assert.equal(noIssuer.status, 422);
  assert.equal((await noIssuer.json()).errors[0].location, "query.issuer");
});
