import assert from "node:assert/strict";
import { createRouter, openapiPaths, type Route } from "./route.ts";
import { localInfo } from "./handler.ts";
import { HttpError } from "./problem.ts";

const text = (body: string) => () => new Response(body);

const TABLE: Route[] = [
  { method: ["GET", "HEAD"], pattern: "/healthz", handler: text("health") },
  { method: "GET", pattern: "/v1/todos", handler: text("list"), openapi: { operationId: "list" } },
  {
    method: "POST",
    pattern: "/v1/todos",
    handler: text("create"),
    openapi: { operationId: "new" },
  },
  {
    method: "GET",
    pattern: "/v1/todos/:id",
    handler: (_req, ctx) => new Response(`get ${ctx.params.id} ${ctx.route}`),
    openapi: { operationId: "get" },
  },
  {
    method: "POST",
    pattern: new URLPattern({ pathname: "/v1/todos/:id/complete" }),
    handler: (_req, ctx) => new Response(`complete ${ctx.params.id}`),
    openapi: { operationId: "complete" },
  },
  { method: "GET", pattern: "/docs/*", label: "/docs/*", handler: text("asset") },
  { method: "*", pattern: "/any", handler: (req) => new Response(req.method) },
];

async function call(method: string, path: string, table = TABLE) {
  const router = createRouter(table);
  return await router.handler(new Request(`http://x${path}`, { method }), localInfo());
}

async function rejectsWith(p: () => Promise<unknown>, status: number, allow?: string) {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof HttpError);
    assert.equal(err.status, status);
    assert.equal(new Headers(err.headers).get("allow"), allow ?? null);
    return true;
  });
}

Deno.test("createRouter() dispatches by path, then method, with the pattern's params", async () => {
  assert.equal(await (await call("GET", "/v1/todos")).text(), "list");
  assert.equal(await (await call("POST", "/v1/todos")).text(), "create");
  assert.equal(await (await call("GET", "/v1/todos/a%20b")).text(), "get a%20b /v1/todos/{id}");
  assert.equal(await (await call("POST", "/v1/todos/7/complete?x=1")).text(), "complete 7");
  assert.equal(await (await call("HEAD", "/healthz")).text(), "health");
  assert.equal(await (await call("GET", "/docs/a/b.css")).text(), "asset");
  assert.equal(await (await call("PURGE", "/any")).text(), "PURGE");
});

Deno.test("createRouter() answers a wrong method with 405 and the pattern's Allow", async () => {
  await rejectsWith(() => call("DELETE", "/v1/todos"), 405, "GET, HEAD, POST");
  await rejectsWith(() => call("PUT", "/v1/todos/1"), 405, "GET, HEAD");
  await rejectsWith(() => call("DELETE", "/healthz"), 405, "GET, HEAD");
  await rejectsWith(() => call("patch", "/healthz"), 405, "GET, HEAD");
  await rejectsWith(() => call("FOO", "/v1/todos/1/complete"), 405, "POST");
});

Deno.test("createRouter() answers HEAD on every GET row from its handler, body left to Deno.serve", async () => {
  const head = await call("HEAD", "/v1/todos/7");
  assert.equal(await head.text(), "get 7 /v1/todos/{id}", "same handler, so same headers");
  assert.equal(await (await call("HEAD", "/docs/a.css")).text(), "asset");
  // A pattern without GET gets no HEAD; one with its own HEAD row keeps it.
  await rejectsWith(() => call("HEAD", "/v1/todos/7/complete"), 405, "POST");
  const own: Route[] = [
    { method: "GET", pattern: "/x", handler: text("get") },
    { method: "HEAD", pattern: "/x", handler: text("own head") },
  ];
  assert.equal(await (await call("HEAD", "/x", own)).text(), "own head");
  const router = createRouter(TABLE);
  assert.equal(
    router.routeOf(new Request("http://x/v1/todos/1", { method: "HEAD" })),
    "/v1/todos/{id}",
  );
});

Deno.test("createRouter() HEAD over the wire: GET's headers and Content-Length, no body", async () => {
  const handler = createRouter(TABLE).handler;
  await using server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, handler);
  const url = `http://127.0.0.1:${server.addr.port}/v1/todos`;
  const get = await fetch(url);
  const head = await fetch(url, { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(await head.text(), "");
  assert.equal(head.headers.get("content-length"), get.headers.get("content-length"));
  assert.equal(head.headers.get("content-length"), String("list".length));
  assert.equal(await get.text(), "list");
});

Deno.test("createRouter() answers 404 for paths no pattern matches", async () => {
  for (const path of ["/", "/v1", "/v1/todos/", "/v1/todos/1/2", "/healthz/", "/HEALTHZ"]) {
    await rejectsWith(() => call("GET", path), 404);
  }
});

Deno.test("the first matching pattern owns the path: a later catch-all never hides a 405", async () => {
  const table: Route[] = [
    { method: "GET", pattern: "/_mock/clock", handler: text("clock") },
    { method: "*", pattern: "/_mock/*", label: "/_mock/*", handler: text("control 404") },
  ];
  await rejectsWith(() => call("DELETE", "/_mock/clock", table), 405, "GET, HEAD");
  assert.equal(await (await call("GET", "/_mock/nothing", table)).text(), "control 404");
});

Deno.test("createRouter() routes 404 and 405 through the hooks when given", async () => {
  const router = createRouter(TABLE, {
    notFound: (_req, ctx) => new Response(`nf ${ctx.url.pathname} ${ctx.route}`, { status: 404 }),
    methodNotAllowed: (req, ctx) =>
      new Response(`${req.method} ${ctx.route} ${ctx.allow}`, { status: 405 }),
    unmatchedLabel: "other",
  });
  const nf = await router.handler(new Request("http://x/nope"), localInfo());
  assert.equal(await nf.text(), "nf /nope other");
  const na = await router.handler(
    new Request("http://x/v1/todos/1", { method: "PUT" }),
    localInfo(),
  );
  assert.equal(await na.text(), "PUT /v1/todos/{id} GET,HEAD");
});

Deno.test("routeOf() gives the label of the owning route, even on 405", () => {
  const router = createRouter(TABLE);
  const label = (method: string, path: string) =>
    router.routeOf(new Request(`http://x${path}`, { method }));
  assert.equal(label("GET", "/v1/todos/123"), "/v1/todos/{id}");
  assert.equal(label("POST", "/v1/todos/123/complete"), "/v1/todos/{id}/complete");
  assert.equal(label("DELETE", "/v1/todos/123"), "/v1/todos/{id}");
  assert.equal(label("GET", "/docs/swagger-ui.css"), "/docs/*");
  assert.equal(label("GET", "/healthz"), "/healthz");
  assert.equal(label("GET", "/a/b/c"), "unmatched");
  assert.equal(label("FOO", "/whatever"), "unmatched");
});

Deno.test("match() parses and matches a request once", () => {
  const router = createRouter(TABLE);
  const req = new Request("http://x/v1/todos/9");
  const first = router.match(req);
  assert.equal(router.match(req), first);
  assert.equal(first.url.pathname, "/v1/todos/9");
  assert.deepEqual(first.params, { id: "9" });
  assert.notEqual(router.match(new Request("http://x/v1/todos/9")), first);
});

Deno.test("openapiPaths() derives the OpenAPI paths from the table", () => {
  const paths = openapiPaths(TABLE);
  assert.deepEqual(Object.keys(paths), ["/v1/todos", "/v1/todos/{id}", "/v1/todos/{id}/complete"]);
  assert.deepEqual(paths["/v1/todos"], {
    get: { operationId: "list" },
    post: { operationId: "new" },
  });
  assert.deepEqual(paths["/v1/todos/{id}/complete"], { post: { operationId: "complete" } });
  const both = openapiPaths([
    { method: ["GET", "HEAD"], pattern: "/readyz", handler: text(""), openapi: { x: 1 } },
  ]);
  assert.deepEqual(both, { "/readyz": { get: { x: 1 } } }, "HEAD beside GET is not repeated");
});

Deno.test("createRouter() rejects an invalid pattern at construction", () => {
  assert.throws(() => createRouter([{ method: "GET", pattern: "/a/:", handler: text("") }]));
});

Deno.test("createRouter() matches a static path without new params; a pattern's params are its own", () => {
  const router = createRouter([
    { method: "GET", pattern: "/v1/todos", handler: () => new Response() },
    { method: "GET", pattern: "/v1/todos/:id", handler: () => new Response() },
  ]);
  const a = router.match(new Request("http://x/v1/todos"));
  const b = router.match(new Request("http://x/v1/todos?limit=2"));
  assert.equal(a.params, b.params, "one shared object for every static match");
  assert.deepEqual(a.params, {});
  assert.ok(Object.isFrozen(a.params));
  const c = router.match(new Request("http://x/v1/todos/1"));
  const d = router.match(new Request("http://x/v1/todos/2"));
  assert.notEqual(c.params, d.params);
  assert.deepEqual([c.params, d.params], [{ id: "1" }, { id: "2" }]);
  const head = router.match(new Request("http://x/v1/todos", { method: "DELETE" }));
  assert.deepEqual(head.allow, ["GET", "HEAD"]);
});
