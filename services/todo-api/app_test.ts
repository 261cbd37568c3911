import assert from "node:assert/strict";
import { createMetrics } from "@svc/shared/metrics";
import { backendSuite, call } from "./_test_support.ts";
import type { Db } from "./store/db.ts";
import { waitUntil } from "@svc/testing";

async function problem(res: Response, status: number) {
  assert.equal(res.status, status, await res.clone().text());
  assert.equal(res.headers.get("content-type"), "application/problem+json");
  assert.equal(res.headers.get("link"), '</schemas/ErrorModel.json>; rel="describedBy"');
  const body = await res.json();
  assert.equal(body.$schema, "http://127.0.0.1:8080/schemas/ErrorModel.json");
  return body;
}

/** Queries of {@linkcode slowed} databases not finished yet. */
let heldBack = 0;

/** The same database, every query held back by `ms` (a database slower than the timeout). */
function slowed(db: Db, ms: number): Db {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "query") {
        return (text: string, params?: readonly unknown[]) => {
          heldBack++;
          return new Promise((resolve) => {
            // real clock: a database slower than the request timeout, itself a real timer
            setTimeout(() => resolve(target.query(text, params).finally(() => heldBack--)), ms);
          });
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

backendSuite(import.meta.url, "todo-api route table and stack", {
  "operational routes answer 405 with Allow: GET, HEAD to other methods": async (env) => {
    const app = env.app();
    for (const path of ["/healthz", "/readyz", "/openapi.json", "/openapi.yaml", "/docs"]) {
      for (const method of ["DELETE", "POST", "PUT", "PATCH", "FOO"]) {
        const res = await app(call(method, path));
        assert.equal(res.headers.get("allow"), "GET, HEAD", `${method} ${path}`);
        const body = await problem(res, 405);
        assert.equal(body.status, 405);
      }
      const head = await app(call("HEAD", path));
      assert.equal(head.status, 200, `HEAD ${path}`);
      await head.body?.cancel();
    }
  },

  "every response carries X-Request-ID, errors included": async (env) => {
    const app = env.app();
    const given = await app(call("GET", "/healthz", { headers: { "x-request-id": "req-1" } }));
    assert.equal(given.headers.get("x-request-id"), "req-1");
    await given.body?.cancel();
    const missing = await app(call("GET", "/v2/todos"));
    assert.match(missing.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
    await problem(missing, 404);
  },

  "a request slower than requestTimeoutMs is a 503 request_timeout problem": async (env) => {
    const key = await env.key("alice", ["user"]);
    const app = env.app({ db: slowed(env.db, 400), requestTimeoutMs: 50 });
    const body = await problem(await app(call("GET", "/v1/todos", { key })), 503);
    assert.equal(body.detail, "Cannot answer: the request took too long");
    await waitUntil(() => heldBack === 0, { what: "the held-back queries to finish" });
  },

  "invented methods add no series to /metrics (method label _OTHER)": async (env) => {
    const metrics = createMetrics({ service: "todo-api" });
    const app = env.app({ metrics });
    const series = async () =>
      (await metrics.registry.metrics()).split("\n").filter((l) => l && !l.startsWith("#"))
        .length;
    for (const path of ["/v1/todos", "/healthz", "/nowhere"]) {
      await (await app(call("INVENTED", path))).body?.cancel();
    }
    const before = await series();
    for (let i = 0; i < 2_000; i++) {
      const path = ["/v1/todos", "/healthz", "/nowhere"][i % 3];
      await (await app(call(`M${i}X`, path))).body?.cancel();
    }
    assert.equal(await series(), before);
    const text = await metrics.registry.metrics();
    assert.match(text, /http_requests_total\{method="_OTHER",route="\/v1\/todos",status="405"/);
    assert.match(text, /http_requests_total\{method="_OTHER",route="unmatched",status="404"/);
    assert.ok(!/method="M\d+X"/.test(text));
  },

  "route labels come from the table": async (env) => {
    const metrics = createMetrics({ service: "todo-api" });
    const app = env.app({ metrics });
    const key = await env.key("alice", ["user"]);
    const created = await (await app(call("POST", "/v1/todos", { key, body: { title: "a" } })))
      .json();
    await (await app(call("GET", `/v1/todos/${created.id}`, { key }))).body?.cancel();
    await (await app(call("POST", `/v1/todos/${created.id}/complete`, { key }))).body?.cancel();
    await (await app(call("GET", "/schemas/Todo.json"))).body?.cancel();
    const text = await metrics.registry.metrics();
    for (
      const route of ["/v1/todos", "/v1/todos/{id}", "/v1/todos/{id}/complete", "/schemas/{name}"]
    ) {
      assert.ok(text.includes(`route="${route}"`), route);
    }
    assert.ok(!text.includes(created.id));
  },
});
