import assert from "node:assert/strict";
import { Registry } from "@svc/shared/metrics";
import { createMockMetrics, withTokenCounting } from "./mock_metrics.ts";

Deno.test("withTokenCounting counts successful token responses per grant type", async () => {
  const registry = new Registry();
  const metrics = createMockMetrics(registry);
  const handler = withTokenCounting(
    (req) => new Response("{}", { status: new URL(req.url).searchParams.has("fail") ? 400 : 200 }),
    metrics,
  );
  const info = {} as Deno.ServeHandlerInfo;
  const post = (query = "", grant = "client_credentials") =>
    handler(
      new Request(`http://x/default/token${query}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: `grant_type=${grant}`,
      }),
      info,
    );
  await post();
  await post();
  await post("?fail");
  await post("", "made_up");
  metrics.tokensIssued.inc({ grant: "mint" });
  const text = await registry.metrics();
  assert.match(text, /mock_oidc_tokens_issued_total\{grant="client_credentials"\} 2/);
  assert.match(text, /mock_oidc_tokens_issued_total\{grant="other"\} 1/);
  assert.match(text, /mock_oidc_tokens_issued_total\{grant="mint"\} 1/);
});
