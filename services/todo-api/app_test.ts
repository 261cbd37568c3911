import assert from "node:assert/strict";
import type { Route } from "@svc/shared/http";
import { createLogger } from "@svc/shared/log";
import { createMetrics } from "@svc/shared/metrics";
import { metricsRoute } from "@svc/shared/operational";
import { contractPath, documentedRoutes } from "@svc/testing/route-docs";
import { backendSuite, call } from "./_test_support.ts";
import { createApp } from "./app.ts";
import type { Db } from "./store/db.ts";
import { openingDb } from "./store/opening_db.ts";
import { waitUntil } from "@svc/testing";

/** `METHOD /path` of every method of `routes`, in the contract's spelling; HEAD beside GET is implied. */
function served(routes: readonly Route[]): string[] {
  return routes.flatMap((route) => {
    const methods = typeof route.method === "string" ? [route.method] : route.method;
    const path = contractPath(
      typeof route.pattern === "string" ? route.pattern : route.pattern.pathname,
    );
    return methods
      .filter((m) => !(m === "HEAD" && methods.includes("GET")))
      .map((m) => `${m} ${path}`);
  });
}

Deno.test("the route table and the routes table of docs/todo-api.md name the same routes", async () => {
  const contract = await Deno.readTextFile(new URL("../../docs/todo-api.md", import.meta.url));
  const documented = documentedRoutes(contract).map((r) => `${r.method} ${r.path}`);
  const app = createApp({
    db: openingDb("postgres", new Promise<Db>(() => {})), // never opens: nothing is asked of it
    migrator: { pending: () => Promise.resolve([]) },
    logger: createLogger({ write: () => {} }),
  });
  // The API listener's table, and the metrics listener's (serve.ts) on --metrics-addr.
  const table = served([...app.routes, metricsRoute(createMetrics({ service: "todo-api" }))]);
  assert.ok(table.includes("POST /v1/todos") && table.includes("GET /schemas/{name}.json"));
  assert.deepEqual([...table].sort(), [...documented].sort());
  assert.equal(new Set(table).size, table.length, "no route twice");
});

async function problem(res: Response, status: number) {
  assert.equal(res.status, status, await res.clone().text());
  assert.equal(res.headers.get("content-type"), "application/problem+json");
  assert.equal(res.headers.get("link"), '</schemas/ErrorModel.json>; rel="describedBy"');
  const body = await res.json();
  assert.equal(body.$schema, "http://127.0.0.1:8080/schemas/ErrorModel.json");
  return body;
}

/** The same database, recording every statement's text and parameters. */
function recording(db: Db): { db: Db; seen: { text: string; params: readonly unknown[] }[] } {
  const seen: { text: string; params: readonly unknown[] }[] = [];
  const proxy = new Proxy(db, {
    get(target, prop) {
      if (prop === "query") {
        return (text: string, params: readonly unknown[] = []) => {
          seen.push({ text, params });
          return target.query(text, params);
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { db: proxy, seen };
}

/** A request whose `req.url` is the raw target, as `Deno.serve` hands it over (no URL parse). */
function rawCall(method: string, target: string, key: string): Request {
  const req = call(method, "/", { key });
  Object.defineProperty(req, "url", { value: `http://127.0.0.1:8080${target}` });
  return req;
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

  "dot segments reach only the route they resolve to, and that route's checks apply": async (
    env,
  ) => {
    const user = await env.key("alice", ["user"]);
    const admin = await env.key("root", ["admin"]);
    const app = env.app();
    for (const target of ["/v1/todos/%2e%2e/keys", "/v1/todos/x/../../keys", "/v1/x/.%2E/keys"]) {
      const denied = await problem(await app(rawCall("GET", target, user)), 403);
      assert.equal(denied.detail, "the key's roles do not permit keys.list", target);
      const listed = await app(rawCall("GET", target, admin));
      assert.equal(listed.status, 200, target);
      assert.ok(Array.isArray((await listed.json()).keys), target);
    }
  },

  "ids and cursors spelled with .., %2e%2e, %2f or NUL never reach SQL nor another route": async (
    env,
  ) => {
    const user = await env.key("alice", ["user"]);
    const admin = await env.key("root", ["admin"]);
    const { db, seen } = recording(env.db);
    const app = env.app({ db });
    const ids: [string, string][] = [
      ["..%2fkeys", "../keys"],
      ["..%2F..%2Fv1%2Fkeys", "../../v1/keys"],
      ["%252e%252e", "%2e%2e"],
      ["..%5c..%5ckeys", "..\\..\\keys"],
      ["%00", "\0"],
      ["x%00..%2f", "x\0../"],
      ["'%20or%201=1--", "' or 1=1--"],
      ["a".repeat(1_000), "a".repeat(1_000)],
    ];
    for (const [raw, id] of ids) {
      for (
        const [method, target, key, what] of [
          ["GET", `/v1/todos/${raw}`, user, "todo"],
          ["POST", `/v1/todos/${raw}/complete`, user, "todo"],
          ["GET", `/v1/keys/${raw}`, admin, "key"],
          ["POST", `/v1/keys/${raw}/revoke`, admin, "key"],
        ] as const
      ) {
        const body = await problem(await app(rawCall(method, target, key)), 404);
        assert.equal(body.detail, `${what} not found`, target);
        assert.deepEqual(body.errors, [
          { location: "path.id", message: `no ${what} with this id`, value: id },
        ]);
      }
    }
    const cursors = ["..%2f..%2fkeys", "%2e%2e.%2e%2e", "..", "a.b%00", "%2e%2e%2f.x"];
    for (const cursor of cursors) {
      const res = await app(rawCall("GET", `/v1/todos?cursor=${cursor}`, user));
      assert.equal((await problem(res, 400)).detail, "invalid cursor", cursor);
    }
    const hostile = [...ids.map(([, id]) => id), ...cursors.map(decodeURIComponent)];
    assert.ok(seen.length > 0, "the recording saw the key lookups");
    for (const { text, params } of seen) {
      for (const value of hostile) {
        assert.ok(!text.includes(value), `a statement's text carries ${JSON.stringify(value)}`);
        assert.ok(!params.includes(value), `${JSON.stringify(value)} reached SQL as a parameter`);
      }
    }
  },
});
