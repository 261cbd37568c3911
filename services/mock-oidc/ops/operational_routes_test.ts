import assert from "node:assert/strict";
import { createMetrics } from "@svc/shared/metrics";
import { createOperationalRoutes } from "./operational_routes.ts";

Deno.test("operational routes: liveness, readiness, OpenAPI, and nothing else", async () => {
  const routes = createOperationalRoutes({ version: "1.0.0" });
  const get = (path: string) => routes(new Request(`http://x${path}`));
  assert.deepEqual(await (await get("/isalive"))!.json(), { status: "ok" });
  assert.deepEqual(await (await get("/healthz"))!.json(), { status: "ok" });
  assert.deepEqual(await (await get("/readyz"))!.json(), { status: "ready", checks: {} });
  assert.equal((await (await get("/openapi.json"))!.json()).openapi, "3.0.3");
  assert.equal(await get("/metrics"), undefined);
  assert.equal(await get("/default/jwks"), undefined);
});

Deno.test("operational routes serve /metrics when it shares the API listener", async () => {
  const metrics = createMetrics({ service: "mock-oidc" });
  const routes = createOperationalRoutes({ version: "1", metrics });
  const res = await routes(new Request("http://x/metrics"));
  assert.equal(res?.status, 200);
  assert.match(await res!.text(), /http_requests_total/);
});
