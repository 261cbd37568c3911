import assert from "node:assert/strict";
import { createControlHandler, fakeDeps, jsonRequest } from "./_test_support.ts";
import { Issuers, MAX_ISSUER_SETTINGS } from "../protocol/issuers.ts";

function setup() {
  const issuers = new Issuers({ configured: { "realms/cfg": { trailingSlash: true } } });
  const handle = createControlHandler(fakeDeps({ issuers }).deps);
  return { issuers, handle };
}

Deno.test("/_mock/issuers: PUT sets, GET lists (configured too), DELETE and reset drop the set ones", async () => {
  const { issuers, handle } = setup();
  const put = await handle(jsonRequest("PUT", "/_mock/issuers", {
    issuer: "tenant1/v2.0",
    trailingSlash: true,
    discovery: { "tenant_region_scope": "EU" },
  }));
  assert.equal(put.status, 200);
  assert.equal(put.headers.get("x-mock-oidc"), "testing-only");
  assert.deepEqual(await put.json(), {
    issuer: "tenant1/v2.0",
    source: "control",
    trailingSlash: true,
    discovery: { "tenant_region_scope": "EU" },
  });
  assert.deepEqual(issuers.optionsOf("tenant1/v2.0").discovery, { "tenant_region_scope": "EU" });
  const list = await (await handle(jsonRequest("GET", "/_mock/issuers"))).json();
  assert.deepEqual(
    list.issuers.map((e: { issuer: string; source: string }) => [e.issuer, e.source]),
    [
      ["realms/cfg", "config"],
      ["tenant1/v2.0", "control"],
    ],
  );
  assert.equal(list.count, 2);
  const cleared = await handle(jsonRequest("DELETE", "/_mock/issuers"));
  assert.deepEqual(await cleared.json(), { count: 1 });
  assert.deepEqual(issuers.optionsOf("tenant1/v2.0"), {});
  assert.deepEqual(issuers.optionsOf("realms/cfg"), { trailingSlash: true });
  await (await handle(jsonRequest("PUT", "/_mock/issuers", { issuer: "realms/cfg" }))).body
    ?.cancel();
  assert.deepEqual(
    issuers.optionsOf("realms/cfg"),
    {},
    "the control plane's replace the configured",
  );
  const reset = await handle(jsonRequest("POST", "/_mock/reset"));
  assert.equal(reset.status, 200);
  await reset.body?.cancel();
  assert.deepEqual(issuers.optionsOf("realms/cfg"), { trailingSlash: true }, "reset drops them");
});

Deno.test("/_mock/issuers: bad bodies are 422 naming the field", async () => {
  const { handle } = setup();
  const cases: [unknown, string, string][] = [
    [{}, "body.issuer", "required property is missing"],
    [{ issuer: "a//b" }, "body.issuer", "issuer must not have an empty path segment"],
    [{ issuer: "_mock/x" }, "body.issuer", "the issuer prefix _mock is reserved"],
    [{ issuer: "a", trailingSlash: "yes" }, "body.trailingSlash", "expected boolean"],
    [{ issuer: "a", discovery: [] }, "body.discovery", "expected object"],
    [{ issuer: "a", other: 1 }, "body.other", "unknown property"],
  ];
  for (const [body, location, message] of cases) {
    const res = await handle(jsonRequest("PUT", "/_mock/issuers", body));
    assert.equal(res.status, 422, JSON.stringify(body));
    const problem = await res.json();
    assert.equal(problem.errors[0].location, location);
    assert.match(problem.errors[0].message, new RegExp(message), JSON.stringify(body));
  }
});

Deno.test("/_mock/issuers: at most 1000 issuers with settings (999, 1000 accepted; 1001 is 409)", async () => {
  const { issuers, handle } = setup();
  for (let i = 0; i < MAX_ISSUER_SETTINGS - 2; i++) issuers.set(`i${i}`, {});
  for (const issuer of ["the-999th", "the-1000th"]) {
    const res = await handle(jsonRequest("PUT", "/_mock/issuers", { issuer }));
    assert.equal(res.status, 200, issuer);
    await res.body?.cancel();
  }
  const over = await handle(jsonRequest("PUT", "/_mock/issuers", { issuer: "the-1001st" }));
  assert.equal(over.status, 409);
  assert.equal(
    (await over.json()).detail,
    "at most 1000 issuers have settings from the control plane; DELETE /_mock/issuers or reset first",
  );
  const again = await handle(jsonRequest("PUT", "/_mock/issuers", { issuer: "the-1000th" }));
  assert.equal(again.status, 200, "replacing one's settings is no new one");
  await again.body?.cancel();
});
