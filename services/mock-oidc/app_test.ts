import assert from "node:assert/strict";
import { localInfo } from "@svc/shared/http";
import { createLogger } from "@svc/shared/log";
import { createMetrics } from "@svc/shared/metrics";
import { type AppOptions, createApp, createAppState } from "./app.ts";
import { harness } from "./protocol/_test_support.ts";

function app(options: AppOptions = {}) {
  const metrics = createMetrics({ service: "mock-oidc" });
  const built = createApp({
    core: harness().core,
    state: createAppState(metrics),
    logger: createLogger({ write: () => {} }),
    options,
  });
  const call = async (path: string, init: RequestInit = {}, handler = built.api) =>
    await handler(new Request(`http://localhost:8080${path}`, init), localInfo());
  return { ...built, call, registry: metrics.registry };
}

/** Never read by these tests: a missing root answers every file with 404. */
const STATIC_ROOT = "/nonexistent/mock-oidc-static";

Deno.test("route labels hide issuer ids and unknown paths", () => {
  const { routeOf } = app({ staticAssetsPath: STATIC_ROOT });
  const label = (path: string, method = "GET") =>
    routeOf(new Request(`http://x${path}`, { method }));
  assert.equal(label("/default/token", "POST"), "/{issuer}/token");
  assert.equal(label("/default/token"), "/{issuer}/token");
  assert.equal(
    label("/x/.well-known/openid-configuration"),
    "/{issuer}/.well-known/openid-configuration",
  );
  assert.equal(
    label("/.well-known/oauth-authorization-server/x"),
    "/.well-known/oauth-authorization-server/{issuer}",
  );
  assert.equal(label("/_mock/mint", "POST"), "/_mock/mint");
  assert.equal(label("/_mock/whatever"), "/_mock/*");
  assert.equal(label("/_mock"), "/_mock/*");
  assert.equal(label("/healthz"), "/healthz");
  assert.equal(label("/static/a/b.css"), "/static/*");
  assert.equal(label("/docs/swagger-ui.css"), "/docs/*");
  assert.equal(label("/a/b/c"), "unmatched");
});

Deno.test("the API table sends each path to its owner", async () => {
  const { call } = app({ staticAssetsPath: STATIC_ROOT });
  assert.deepEqual(await (await call("/healthz")).json(), { status: "ok" });
  const clock = await call("/_mock/clock");
  assert.equal(clock.headers.get("x-mock-oidc"), "testing-only");
  assert.equal(typeof (await clock.json()).frozen, "boolean");
  const missingStatic = await call("/static/nope.css");
  assert.equal(missingStatic.status, 404);
  assert.equal((await missingStatic.json()).detail, "no such static file");
  assert.equal((await (await call("/default/jwks")).json()).keys[0].kid, "default");
  const reserved = await call("/_mockery/token", { method: "POST" });
  assert.equal(reserved.status, 404);
  assert.match((await reserved.json()).detail, /reserved/);
});

Deno.test("without a co-located control plane /_mock/* is answered by controlMissing", async () => {
  for (
    const [options, detail] of [
      [{ controlEnabled: false }, "the control plane is disabled"],
      [{ dedicatedControl: true }, "the control plane is served on its own listener"],
    ] as const
  ) {
    const { call } = app(options);
    for (const method of ["GET", "DELETE", "PATCH"]) {
      const res = await call("/_mock/clock", { method });
      assert.equal(res.status, 404);
      assert.equal(res.headers.get("x-mock-oidc"), "testing-only");
      assert.equal((await res.json()).detail, `Cannot find /_mock/clock: ${detail}`);
    }
    // No static root configured: /static/... belongs to the issuer namespace.
    const res = await call("/static/jwks");
    assert.equal(res.status, 200);
    await res.body?.cancel();
  }
});

Deno.test("the control listener serves only /_mock/* and /favicon.ico (its console is HTML)", async () => {
  const { call, control } = app({ dedicatedControl: true });
  assert.ok(control);
  const clock = await call("/_mock/clock", {}, control);
  assert.equal(clock.status, 200);
  await clock.body?.cancel();
  const other = await call("/default/jwks", {}, control);
  assert.equal(other.status, 404);
  assert.deepEqual(await other.json(), {
    type: "about:blank",
    title: "Not Found",
    status: 404,
    detail: "Cannot find /default/jwks: only /_mock/* is served here",
    instance: "/default/jwks",
  });
  const wrong = await call("/_mock/clock", { method: "DELETE" }, control);
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers.get("allow"), "GET, HEAD, PUT");
  await wrong.body?.cancel();
  const icon = await call("/favicon.ico", {}, control);
  assert.equal(icon.status, 200);
  assert.equal(icon.headers.get("cache-control"), "public, max-age=86400");
  assert.equal(await icon.text(), "");
});

Deno.test("wrong methods are 405 with Allow, each in its part's words", async () => {
  const { call } = app({ metricsOnApi: true });
  for (const path of ["/healthz", "/isalive", "/readyz", "/metrics", "/openapi.json", "/docs"]) {
    const res = await call(path, { method: "DELETE" });
    assert.equal(res.status, 405, path);
    assert.equal(res.headers.get("allow"), "GET, HEAD", path);
    assert.equal(res.headers.get("content-type"), "application/problem+json");
    await res.body?.cancel();
  }
  const protocol = await call("/default/token");
  assert.equal(protocol.status, 405);
  assert.equal(protocol.headers.get("allow"), "POST");
  assert.equal((await protocol.json()).detail, "GET is not allowed here");
  const controlPlane = await call("/_mock/clock", { method: "DELETE" });
  assert.equal(controlPlane.status, 405);
  assert.equal(controlPlane.headers.get("allow"), "GET, HEAD, PUT");
  assert.equal(controlPlane.headers.get("x-mock-oidc"), "testing-only");
  assert.equal((await controlPlane.json()).detail, "DELETE is not allowed on /_mock/clock");
});

Deno.test("the control token is checked before a control path's 404 or 405", async () => {
  const { call } = app({ controlToken: "s3cret" });
  for (const [path, method] of [["/_mock/nothing", "GET"], ["/_mock/clock", "DELETE"]]) {
    const res = await call(path, { method });
    assert.equal(res.status, 401, `${method} ${path}`);
    await res.body?.cancel();
  }
});

Deno.test("the metrics listener serves only GET and HEAD /metrics", async () => {
  const { call, metrics } = app();
  const ok = await call("/metrics", {}, metrics);
  assert.equal(ok.status, 200);
  await ok.body?.cancel();
  const wrong = await call("/metrics", { method: "POST" }, metrics);
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers.get("allow"), "GET, HEAD");
  await wrong.body?.cancel();
  const other = await call("/healthz", {}, metrics);
  assert.equal(other.status, 404);
  assert.equal((await other.json()).detail, "Cannot find /healthz: only /metrics is served here");
});

Deno.test("invented methods add no series to the HTTP metrics", async () => {
  const { call, registry } = app();
  const series = async () =>
    (await registry.metrics()).split("\n").filter((l) => l.startsWith("http_")).length;
  await (await call("/default/token", { method: "INVENTED" })).body?.cancel();
  const before = await series();
  for (let i = 0; i < 500; i++) {
    await (await call("/default/token", { method: `M${i}` })).body?.cancel();
  }
  assert.equal(await series(), before);
  assert.match(
    await registry.metrics(),
    /method="_OTHER",route="\/\{issuer\}\/token",status="405"/,
  );
});

Deno.test("an unknown path on the API listener answers the kit's 404 problem", async () => {
  const { call } = app({});
  for (const path of ["/", "/nope"]) {
    const res = await call(path, {});
    assert.equal(res.status, 404);
    assert.equal(res.headers.get("content-type"), "application/problem+json");
    assert.deepEqual(await res.json(), {
      type: "about:blank",
      title: "Not Found",
      status: 404,
      detail: `Cannot find ${path}: no route for this path`,
      instance: path,
    });
  }
});
