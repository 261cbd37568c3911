import assert from "node:assert/strict";
import { control, startMock } from "./_test_support.ts";

Deno.test("/metrics on the metrics listener counts requests per route, tokens per grant, queue and log", async () => {
  const mock = await startMock();
  try {
    await control(mock.url, "POST", "/_mock/mint", { issuer: "m" });
    await control(mock.url, "POST", "/_mock/scenarios", { issuer: "m2" });
    const token = await fetch(`${mock.url}/m/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials&client_id=c&client_secret=s",
    });
    await token.body?.cancel();
    const onApi = await fetch(`${mock.url}/metrics`);
    assert.equal(onApi.status, 404);
    await onApi.body?.cancel();
    const text = await (await fetch(`${mock.urls.metrics}/metrics`)).text();
    assert.match(text, /mock_oidc_tokens_issued_total\{grant="mint"[^}]*\} 1\n/);
    assert.match(text, /mock_oidc_tokens_issued_total\{grant="client_credentials"[^}]*\} 1\n/);
    assert.match(text, /mock_oidc_scenario_queue_depth(\{[^}]*\})? 1\n/);
    assert.match(text, /mock_oidc_captured_requests(\{[^}]*\})? 1\n/);
    assert.match(text, /route="\/\{issuer\}\/token"/);
    assert.match(text, /route="\/_mock\/mint"/);
  } finally {
    await mock.stop();
  }
});

Deno.test("--metrics-addr '' serves /metrics on the API listener", async () => {
  const mock = await startMock({ args: ["--metrics-addr", ""], listeners: ["api"] });
  try {
    const res = await fetch(`${mock.url}/metrics`);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /mock_oidc_captured_requests/);
  } finally {
    await mock.stop();
  }
});

Deno.test("operational routes answer on the API listener", async () => {
  const mock = await startMock();
  try {
    for (const path of ["/isalive", "/healthz"]) {
      assert.deepEqual(await (await fetch(`${mock.url}${path}`)).json(), { status: "ok" });
    }
    assert.deepEqual(await (await fetch(`${mock.url}/readyz`)).json(), {
      status: "ready",
      checks: {},
    });
    const docs = await fetch(`${mock.url}/docs`);
    assert.equal(docs.status, 200);
    assert.doesNotMatch(await docs.text(), /https?:\/\/(?!127\.0\.0\.1)[a-z]/i);
    const yaml = await fetch(`${mock.url}/openapi.yaml`);
    assert.match(await yaml.text(), /openapi: 3\.0\.3/);
  } finally {
    await mock.stop();
  }
});
