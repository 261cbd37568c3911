import assert from "node:assert/strict";
import { createMetrics, metricsHandler, withHttpMetrics } from "./metrics.ts";
import { localInfo } from "../http/handler.ts";

Deno.test("withHttpMetrics() counts requests per route and status and times them", async () => {
  const metrics = createMetrics({ service: "svc" });
  const h = withHttpMetrics(
    (req) => new Response(null, { status: req.method === "POST" ? 201 : 200 }),
    metrics,
    { route: (req) => new URL(req.url).pathname.replace(/\/\d+$/, "/{id}") },
  );
  await h(new Request("http://x/todos/1"), localInfo());
  await h(new Request("http://x/todos/2"), localInfo());
  await h(new Request("http://x/todos", { method: "POST" }), localInfo());
  const text = await (await metricsHandler(metrics)(new Request("http://x/metrics"), localInfo()))
    .text();
  assert.match(
    text,
    /http_requests_total\{method="GET",route="\/todos\/\{id\}",status="200",service="svc"\} 2/,
  );
  assert.match(
    text,
    /http_requests_total\{method="POST",route="\/todos",status="201",service="svc"\} 1/,
  );
  assert.match(
    text,
    /http_request_duration_seconds_count\{method="GET",route="\/todos\/\{id\}",service="svc"\} 2/,
  );
});

Deno.test("withHttpMetrics() counts a throwing handler as 500", async () => {
  const metrics = createMetrics({ service: "svc" });
  const h = withHttpMetrics(
    () => {
      throw new Error("x");
    },
    metrics,
    { route: () => "/boom" },
  );
  await assert.rejects(Promise.resolve(h(new Request("http://x/boom"), localInfo())));
  assert.match(await metrics.registry.metrics(), /route="\/boom",status="500"/);
});

Deno.test("metricsHandler() serves the exposition content type", async () => {
  const res = await metricsHandler(createMetrics({ service: "a" }))(
    new Request("http://x/metrics"),
    localInfo(),
  );
  assert.match(res.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  await res.body?.cancel();
});

Deno.test("withHttpMetrics() labels unknown methods _OTHER, so invented methods add no series", async () => {
  const metrics = createMetrics({ service: "svc" });
  const h = withHttpMetrics(() => new Response(null, { status: 405 }), metrics, {
    route: () => "unmatched",
  });
  const series = async () =>
    (await metrics.registry.metrics()).split("\n").filter((l) => l && !l.startsWith("#")).length;
  await h(new Request("http://x/", { method: "M0" }), localInfo());
  const afterOne = await series();
  for (let i = 1; i < 2_000; i++) {
    await h(new Request("http://x/", { method: `M${i}` }), localInfo());
  }
  assert.equal(await series(), afterOne);
  const text = await metrics.registry.metrics();
  assert.match(
    text,
    /http_requests_total\{method="_OTHER",route="unmatched",status="405",[^}]*\} 2000/,
  );
  for (const method of ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"]) {
    await h(new Request("http://x/", { method }), localInfo());
    assert.match(await metrics.registry.metrics(), new RegExp(`method="${method}"`));
  }
  await h(new Request("http://x/", { method: "patch" }), localInfo());
  assert.match(await metrics.registry.metrics(), /method="_OTHER"[^\n]* 2001/);
});
