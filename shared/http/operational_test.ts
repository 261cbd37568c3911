import assert from "node:assert/strict";
import { createRouter, localInfo, openapiPaths } from "./mod.ts";
import { createMetrics } from "../observe/metrics.ts";
import { operationalRoutes } from "./operational.ts";
import { HttpError } from "./problem.ts";

const doc = { openapi: "3.0.3", info: { title: "t", version: "1" }, paths: {} };

async function call(router: ReturnType<typeof createRouter>, method: string, path: string) {
  return await router.handler(new Request(`http://x${path}`, { method }), localInfo());
}

Deno.test("operational routes answer GET and HEAD, and 405 with Allow to other methods", async () => {
  const router = createRouter(operationalRoutes({
    metrics: createMetrics({ service: "svc" }),
    openapi: { document: doc, title: "t" },
  }));
  const paths = ["/healthz", "/readyz", "/metrics", "/openapi.json", "/openapi.yaml", "/docs"];
  for (const path of paths) {
    for (const method of ["GET", "HEAD"]) {
      const res = await call(router, method, path);
      assert.equal(res.status, 200, `${method} ${path}`);
      await res.body?.cancel();
    }
    for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "FOO"]) {
      await assert.rejects(async () => await call(router, method, path), (err: unknown) => {
        assert.ok(err instanceof HttpError, `${method} ${path}`);
        assert.equal(err.status, 405);
        assert.equal(new Headers(err.headers).get("allow"), "GET, HEAD");
        return true;
      });
    }
  }
});

Deno.test("operational routes: readiness from the caller, /metrics and docs only when asked", async () => {
  const router = createRouter(operationalRoutes({
    readiness: () => Response.json({ status: "not_ready" }, { status: 503 }),
  }));
  assert.equal((await call(router, "GET", "/readyz")).status, 503);
  assert.deepEqual(await (await call(router, "GET", "/healthz")).json(), { status: "ok" });
  for (const path of ["/metrics", "/openapi.json", "/docs"]) {
    await assert.rejects(async () => await call(router, "GET", path), { status: 404 });
  }
});

Deno.test("operational routes are documented where the caller gives an operation", () => {
  const routes = operationalRoutes({
    openapi: { document: doc, title: "t" },
    docs: { "/healthz": { operationId: "healthz" }, "/openapi.json": { operationId: "json" } },
  });
  assert.deepEqual(openapiPaths(routes), {
    "/healthz": { get: { operationId: "healthz" } },
    "/openapi.json": { get: { operationId: "json" } },
  });
});

Deno.test("the OpenAPI document may be built lazily from the table it is served by", async () => {
  let built = 0;
  const routes = operationalRoutes({
    openapi: { document: () => (built++, { paths: openapiPaths(routes) }), title: "t" },
    docs: { "/healthz": { operationId: "healthz" } },
  });
  const router = createRouter(routes);
  assert.equal(built, 0);
  const body = await (await call(router, "GET", "/openapi.json")).json();
  assert.deepEqual(Object.keys(body.paths), ["/healthz"]);
  await (await call(router, "GET", "/openapi.json")).body?.cancel();
  assert.equal(built, 1);
});
