import assert from "node:assert/strict";
import { createRouter, type Route } from "./route.ts";
import { withDefaultStack } from "./stack.ts";
import { localInfo } from "./handler.ts";
import { requestIdOf } from "./request_id.ts";
import { timeoutSignalOf } from "./timeout.ts";
import { createLogger } from "../observe/log.ts";
import { createMetrics } from "../observe/metrics.ts";
import type { HttpError } from "./problem.ts";
import { nextTurn, waitUntil } from "@svc/testing";

const ROUTES: Route[] = [
  { method: ["GET", "HEAD"], pattern: "/healthz", handler: () => new Response("ok") },
  {
    method: "GET",
    pattern: "/items/:id",
    handler: (req, ctx) => new Response(`${ctx.params.id} ${requestIdOf(req)}`),
  },
  {
    method: "POST",
    pattern: "/boom",
    handler: () => {
      throw new Error("database password is hunter2");
    },
  },
  {
    method: "GET",
    pattern: "/slow",
    handler: (req) =>
      new Promise((resolve) => {
        timeoutSignalOf(req)?.addEventListener("abort", () => resolve(new Response("late")));
      }),
  },
];

function setup(extra: Partial<Parameters<typeof withDefaultStack>[1]> = {}) {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ write: (l) => lines.push(JSON.parse(l)) });
  const metrics = createMetrics({ service: "svc" });
  const handler = withDefaultStack(createRouter(ROUTES), { logger, metrics, ...extra });
  const call = (method: string, path: string, headers: HeadersInit = {}) =>
    Promise.resolve(handler(new Request(`http://x${path}`, { method, headers }), localInfo()));
  const settle = nextTurn;
  return { call, lines, metrics, settle };
}

Deno.test("withDefaultStack() gives every response a request id, errors included", async () => {
  const { call } = setup();
  const ok = await call("GET", "/items/1", { "x-request-id": "abc-1" });
  assert.equal(ok.headers.get("x-request-id"), "abc-1");
  assert.equal(await ok.text(), "1 abc-1");
  const missing = await call("GET", "/nope");
  assert.match(missing.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
  await missing.body?.cancel();
});

Deno.test("withDefaultStack() turns 404, 405 and thrown errors into problems", async () => {
  const { call, lines, settle } = setup();
  const nf = await call("GET", "/nope");
  assert.equal(nf.status, 404);
  assert.equal(nf.headers.get("content-type"), "application/problem+json");
  assert.equal((await nf.json()).instance, "/nope");
  const na = await call("DELETE", "/healthz");
  assert.equal(na.status, 405);
  assert.equal(na.headers.get("allow"), "GET, HEAD");
  await na.body?.cancel();
  const boom = await call("POST", "/boom");
  assert.equal(boom.status, 500);
  const text = await boom.text();
  assert.ok(!text.includes("hunter2"));
  await settle();
  assert.ok(lines.some((l) => l.msg === "unhandled error"));
});

Deno.test("withDefaultStack() answers 503 after requestTimeoutMs and aborts the handler", async () => {
  const { call } = setup({ requestTimeoutMs: 20 });
  const res = await call("GET", "/slow");
  assert.equal(res.status, 503);
  assert.equal(res.headers.get("content-type"), "application/problem+json");
  await res.body?.cancel();
});

Deno.test("withDefaultStack() logs the route label and skips probe paths", async () => {
  const { call, lines, settle } = setup();
  await (await call("GET", "/items/42?token=secret")).body?.cancel();
  await (await call("GET", "/healthz")).body?.cancel();
  await (await call("GET", "/unknown")).body?.cancel();
  await settle();
  const requests = lines.filter((l) => l.msg === "request");
  assert.deepEqual(
    requests.map((l) => [l.path, l.route, l.status]),
    [["/items/42", "/items/{id}", 200], ["/unknown", "unmatched", 404]],
  );
  assert.ok(!JSON.stringify(lines).includes("secret"));
});

Deno.test("withDefaultStack() counts requests by route label and bounded method", async () => {
  const { call, metrics } = setup();
  await (await call("GET", "/items/1")).body?.cancel();
  await (await call("GET", "/items/2")).body?.cancel();
  await (await call("BREW", "/items/3")).body?.cancel();
  const text = await metrics.registry.metrics();
  assert.match(text, /http_requests_total\{method="GET",route="\/items\/\{id\}",status="200",/);
  assert.match(text, /http_requests_total\{method="_OTHER",route="\/items\/\{id\}",status="405",/);
  assert.ok(!text.includes("BREW"));
});

Deno.test("withDefaultStack() uses renderError, cors, inner and outer when given", async () => {
  const order: string[] = [];
  const { call } = setup({
    renderError: (_req, err) =>
      new Response(`custom ${(err as HttpError).status}`, { status: (err as HttpError).status }),
    cors: { allowedOrigins: ["https://app.test"] },
    outer: (h) => (req, info) => (order.push("outer"), h(req, info)),
    inner: (h) => (req, info) => (order.push("inner"), h(req, info)),
  });
  const res = await call("GET", "/nope", { origin: "https://app.test" });
  assert.equal(await res.text(), "custom 404");
  assert.equal(res.headers.get("access-control-allow-origin"), "https://app.test");
  assert.deepEqual(order, ["outer", "inner"]);
});

Deno.test("withDefaultStack() without a timeout leaves the handler unbounded", async () => {
  const { call } = setup({ requestTimeoutMs: 0 });
  const res = await call("GET", "/items/5");
  assert.equal(res.status, 200);
  await res.body?.cancel();
});

Deno.test("the default stack answers 400 invalid_host to a URL Deno built from a bad Host", async () => {
  const router = createRouter([{
    method: "GET",
    pattern: "/x",
    handler: () => new Response("ok"),
  }]);
  const handler = withDefaultStack(router, { logger: createLogger({ write: () => {} }) });
  for (const url of ["http://a:99999/x", "http://a b%/x", "http://[::1/x"]) {
    const req = new Request("http://ok/x");
    Object.defineProperty(req, "url", { value: url });
    const res = await handler(req, localInfo());
    assert.equal(res.status, 400, url);
    assert.equal(res.headers.get("content-type"), "application/problem+json");
    assert.ok(res.headers.get("x-request-id"));
    assert.match((await res.json()).detail, /Host header/);
  }
});

Deno.test("the default stack parses a request's URL once, for the target check and every layer", async () => {
  const router = createRouter([{
    method: "GET",
    pattern: "/x/:id",
    handler: () => new Response(),
  }]);
  const handler = withDefaultStack(router, {
    logger: createLogger({ write: () => {} }),
    metrics: createMetrics({ service: "t" }),
  });
  const req = new Request("http://ok/x/1");
  let reads = 0;
  Object.defineProperty(req, "url", {
    get: () => {
      reads++;
      return "http://ok/x/1";
    },
  });
  const res = await handler(req, localInfo());
  assert.equal(res.status, 200);
  assert.equal(reads, 1);
});

Deno.test("withDefaultStack() with renderInvalidTarget draws the invalid_host 400 itself", async () => {
  const router = createRouter([{ method: "GET", pattern: "/x", handler: () => new Response() }]);
  const handler = withDefaultStack(router, {
    logger: createLogger({ write: () => {} }),
    renderInvalidTarget: (req, err) =>
      Response.json({ code: err.code, id: requestIdOf(req) }, { status: err.status }),
  });
  const req = new Request("http://ok/x", { headers: { "x-request-id": "r-1" } });
  Object.defineProperty(req, "url", { value: "http://a:99999/x" });
  const res = await handler(req, localInfo());
  assert.equal(res.status, 400);
  assert.deepEqual(await res.json(), { code: "invalid_host", id: "r-1" });
});

Deno.test("withDefaultStack() with accessLog false writes no request records", async () => {
  const { call, lines, settle } = setup({ accessLog: false });
  await (await call("GET", "/items/42")).body?.cancel();
  await (await call("GET", "/unknown")).body?.cancel();
  await settle();
  assert.deepEqual(lines.filter((l) => l.msg === "request"), []);
  // Errors are still rendered and unexpected ones still logged.
  const boom = await call("POST", "/boom");
  assert.equal(boom.status, 500);
  await boom.body?.cancel();
  assert.ok(lines.some((l) => l.level === "error"));
});

Deno.test("with trustedProxyHeader the access log's remote is the client behind the proxy", async () => {
  const lines: string[] = [];
  const router = createRouter([{
    method: "GET",
    pattern: "/x",
    handler: () => new Response("ok"),
  }]);
  const handler = withDefaultStack(router, {
    logger: createLogger({ write: (l) => lines.push(l) }),
    trustedProxyHeader: "X-Real-IP",
  });
  const res = await handler(
    new Request("http://h/x", { headers: { "x-real-ip": "203.0.113.9" } }),
    localInfo(),
  );
  await res.body?.cancel();
  await waitUntil(() => lines.some((l) => l.includes('"request"')), { what: "the access log" });
  assert.equal(JSON.parse(lines.find((l) => l.includes('"request"'))!).remote, "203.0.113.9");
});

Deno.test("withDefaultStack() hands a synchronous answer back without a promise, errors too", async () => {
  const { handler } = setupHandler();
  const ok = handler(new Request("http://x/items/7"), localInfo());
  assert.ok(ok instanceof Response, "a synchronous route answers synchronously");
  assert.equal(ok.status, 200);
  assert.ok(ok.headers.get("x-request-id"));
  const boom = handler(new Request("http://x/boom", { method: "POST" }), localInfo());
  assert.ok(boom instanceof Response, "a synchronous throw is rendered synchronously");
  assert.equal(boom.status, 500);
  const slow = handler(new Request("http://x/later"), localInfo());
  assert.ok(slow instanceof Promise, "an asynchronous route answers with a promise");
  const later = await slow;
  assert.equal(await later.text(), "later");
  assert.ok(later.headers.get("x-request-id"));
  await ok.body?.cancel();
  await boom.body?.cancel();
});

Deno.test("withDefaultStack() logs and counts a timed-out request once, as its 503", async () => {
  const { call, lines, metrics, settle } = setup({ requestTimeoutMs: 20 });
  const res = await call("GET", "/slow"); // its late "late" answer comes right after the 503
  assert.equal(res.status, 503);
  assert.ok(res.headers.get("x-request-id"));
  await res.body?.cancel();
  await settle();
  await settle();
  const requests = lines.filter((l) => l.msg === "request");
  assert.deepEqual(requests.map((l) => [l.path, l.status]), [["/slow", 503]]);
  const text = await metrics.registry.metrics();
  assert.match(
    text,
    /http_requests_total\{method="GET",route="\/slow",status="503",service="svc"\} 1/,
  );
  assert.doesNotMatch(text, /status="200"/);
});

Deno.test("withDefaultStack() waits for a renderError that answers with a promise", async () => {
  const { call, lines, settle } = setup({
    renderError: (_req, err) =>
      Promise.resolve(new Response(`rendered: ${(err as HttpError).status}`, { status: 418 })),
  });
  const res = await call("GET", "/nowhere");
  assert.equal(res.status, 418);
  assert.equal(await res.text(), "rendered: 404");
  assert.ok(res.headers.get("x-request-id"));
  await settle();
  assert.deepEqual(lines.filter((l) => l.msg === "request").map((l) => l.status), [418]);
});

Deno.test("withDefaultStack() with a failing renderError: the failure propagates, counted as 500, not logged", async () => {
  for (
    const render of [() => Promise.reject(new Error("render failed")), () => {
      throw new Error("render failed");
    }]
  ) {
    const { call, lines, metrics, settle } = setup({ renderError: render });
    await assert.rejects(call("GET", "/nowhere"), /render failed/);
    await settle();
    assert.deepEqual(lines.filter((l) => l.msg === "request"), []);
    assert.match(
      await metrics.registry.metrics(),
      /http_requests_total\{method="GET",route="unmatched",status="500",service="svc"\} 1/,
    );
  }
});

function setupHandler() {
  const routes: Route[] = [
    ...ROUTES,
    { method: "GET", pattern: "/later", handler: () => Promise.resolve(new Response("later")) },
  ];
  const logger = createLogger({ write: () => {} });
  return { handler: withDefaultStack(createRouter(routes), { logger }) };
}
