import assert from "node:assert/strict";
import { Registry } from "@svc/shared/metrics";
import { countTokenIssued, createMockMetrics } from "./mock_metrics.ts";
import { basic, createProtocolHandler, harness } from "../protocol/_test_support.ts";

Deno.test("countTokenIssued counts per grant type, unknown grants as other", async () => {
  const registry = new Registry();
  const metrics = createMockMetrics(registry);
  countTokenIssued(metrics, "client_credentials");
  countTokenIssued(metrics, "client_credentials");
  countTokenIssued(metrics, "made_up");
  metrics.tokensIssued.inc({ grant: "mint" });
  const text = await registry.metrics();
  assert.match(text, /mock_oidc_tokens_issued_total\{grant="client_credentials"\} 2/);
  assert.match(text, /mock_oidc_tokens_issued_total\{grant="other"\} 1/);
  assert.match(text, /mock_oidc_tokens_issued_total\{grant="mint"\} 1/);
});

Deno.test("the token endpoint reports the grant of successful responses only", async () => {
  const { core } = harness();
  const reported: string[] = [];
  const handler = createProtocolHandler({
    ...core.protocol,
    onTokenIssued: (grant) => reported.push(grant),
  });
  const post = (body: string, headers: HeadersInit = {}) =>
    handler(
      new Request("http://localhost:8080/default/token", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body,
      }),
    );
  const ok = await post("grant_type=client_credentials", { authorization: basic("svc") });
  assert.equal(ok.status, 200);
  await ok.body?.cancel();
  const noClient = await post("grant_type=client_credentials");
  assert.equal(noClient.status, 401);
  await noClient.body?.cancel();
  const unsupported = await post("grant_type=made_up", { authorization: basic("svc") });
  assert.equal(unsupported.status, 400);
  await unsupported.body?.cancel();
  assert.deepEqual(reported, ["client_credentials"]);
});
