import assert from "node:assert/strict";
import { backendSuite, call } from "../_test_support.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const US_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

async function problem(res: Response, status: number) {
  assert.equal(res.status, status, await res.clone().text());
  assert.equal(res.headers.get("content-type"), "application/problem+json");
  assert.equal(res.headers.get("link"), '</schemas/ErrorModel.json>; rel="describedBy"');
  const body = await res.json();
  assert.equal(body.$schema, "http://127.0.0.1:8080/schemas/ErrorModel.json");
  assert.equal(body.status, status);
  return body;
}

backendSuite(import.meta.url, "todo API", {
  "POST /v1/todos returns 201 with the todo, $schema, Link and Location": async (env) => {
    const app = env.app();
    const key = await env.key("alice", ["user"]);
    const res = await app(call("POST", "/v1/todos", { key, body: { title: "buy milk" } }));
    assert.equal(res.status, 201);
    assert.equal(res.headers.get("link"), '</schemas/Todo.json>; rel="describedBy"');
    const todo = await res.json();
    assert.equal(Object.keys(todo)[0], "$schema");
    assert.equal(todo.$schema, "http://127.0.0.1:8080/schemas/Todo.json");
    assert.match(todo.id, UUID);
    assert.equal(todo.title, "buy milk");
    assert.equal(todo.status, "open");
    assert.match(todo.createdAt, US_TIME);
    assert.equal("completedAt" in todo, false);
    assert.equal(res.headers.get("location"), `/v1/todos/${todo.id}`);
  },

  "POST /v1/todos accepts $schema sent back and title bounds 1 and 200": async (env) => {
    const app = env.app();
    const key = await env.key("alice", ["user"]);
    for (const title of ["x", "y".repeat(200), "é".repeat(200), "😀".repeat(200)]) {
      const res = await app(call("POST", "/v1/todos", {
        key,
        body: { $schema: "http://127.0.0.1:8080/schemas/CreateTodoInputBody.json", title },
      }));
      assert.equal(res.status, 201, title);
      assert.equal((await res.json()).title, title);
    }
  },

  "POST /v1/todos with title of 0 or 201 characters is 422 at body.title": async (env) => {
    const app = env.app();
    const key = await env.key("alice", ["user"]);
    const empty = await problem(
      await app(call("POST", "/v1/todos", { key, body: { title: "" } })),
      422,
    );
    assert.equal(empty.detail, "validation failed");
    assert.deepEqual(empty.errors, [{
      location: "body.title",
      message: "expected length >= 1",
      value: "",
    }]);
    const long = "z".repeat(201);
    const over = await problem(
      await app(call("POST", "/v1/todos", { key, body: { title: long } })),
      422,
    );
    assert.deepEqual(over.errors, [{
      location: "body.title",
      message: "expected length <= 200",
      value: long,
    }]);
  },

  "POST /v1/todos lists every validation error (missing, type, unknown properties)": async (
    env,
  ) => {
    const app = env.app();
    const key = await env.key("alice", ["user"]);
    const missing = await problem(
      await app(call("POST", "/v1/todos", { key, body: { done: true } })),
      422,
    );
    assert.deepEqual(missing.errors, [
      { location: "body.done", message: "unexpected property", value: true },
      {
        location: "body",
        message: "expected required property title to be present",
        value: { done: true },
      },
    ]);
    const typed = await problem(
      await app(call("POST", "/v1/todos", { key, body: { title: 5 } })),
      422,
    );
    assert.deepEqual(typed.errors, [{
      location: "body.title",
      message: "expected string",
      value: 5,
    }]);
    const arr = await problem(await app(call("POST", "/v1/todos", { key, body: ["t"] })), 422);
    assert.equal(arr.errors[0].message, "expected object");
  },

  "POST /v1/todos with malformed or empty JSON is 400": async (env) => {
    const app = env.app();
    const key = await env.key("alice", ["user"]);
    const bad = await problem(await app(call("POST", "/v1/todos", { key, raw: '{"title":' })), 400);
    assert.equal(bad.errors[0].location, "body");
    await problem(await app(call("POST", "/v1/todos", { key, raw: "" })), 400);
  },

  "POST /v1/todos with a non-JSON content type is 415": async (env) => {
    const app = env.app();
    const key = await env.key("alice", ["user"]);
    await problem(
      await app(
        call("POST", "/v1/todos", {
          key,
          raw: "title=x",
          headers: { "content-type": "text/plain" },
        }),
      ),
      415,
    );
  },

  "POST /v1/todos body at the byte limit is read, one byte over is 413": async (env) => {
    const app = env.app({ maxBodyBytes: 64 });
    const key = await env.key("alice", ["user"]);
    const at = JSON.stringify({ title: "a".repeat(64 - 12) });
    assert.equal(new TextEncoder().encode(at).length, 64);
    assert.equal((await app(call("POST", "/v1/todos", { key, raw: at }))).status, 201);
    const over = JSON.stringify({ title: "a".repeat(64 - 11) });
    await problem(await app(call("POST", "/v1/todos", { key, raw: over })), 413);
  },

  "POST /v1/todos whose body stalls past the read timeout is 408": async (env) => {
    const app = env.app({ bodyTimeoutMs: 50 });
    const key = await env.key("alice", ["user"]);
    const stalled = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"title":'));
      },
    });
    const req = new Request("http://127.0.0.1:8080/v1/todos", {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: stalled,
    });
    await problem(await app(req), 408);
  },

  "a request before the schema exists is 503, not 500": async (env) => {
    const app = env.app();
    await env.db.exec("alter table api_keys rename to api_keys_away");
    try {
      const res = await app(call("GET", "/v1/todos", { key: "todo_whatever" }));
      const body = await problem(res, 503);
      assert.match(body.detail, /not migrated/);
      assert.equal(res.headers.get("retry-after"), "5");
    } finally {
      await env.db.exec("alter table api_keys_away rename to api_keys");
    }
  },

  "GET /v1/todos/{id} returns 200, and 404 for unknown, malformed and foreign ids": async (env) => {
    const app = env.app();
    const alice = await env.key("alice", ["user"]);
    const bob = await env.key("bob", ["user"]);
    const created =
      await (await app(call("POST", "/v1/todos", { key: alice, body: { title: "t" } }))).json();
    const res = await app(call("GET", `/v1/todos/${created.id}`, { key: alice }));
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), created);
    const unknown = await problem(
      await app(call("GET", `/v1/todos/${crypto.randomUUID()}`, { key: alice })),
      404,
    );
    assert.equal(unknown.errors[0].location, "path.id");
    await problem(await app(call("GET", "/v1/todos/not-a-uuid", { key: alice })), 404);
    await problem(await app(call("GET", "/v1/todos/%E0%A4%A", { key: alice })), 404);
    // bob must not learn that alice's todo exists
    await problem(await app(call("GET", `/v1/todos/${created.id}`, { key: bob })), 404);
  },

  "POST /v1/todos/{id}/complete is 200 and idempotent, keeping the first completedAt": async (
    env,
  ) => {
    const app = env.app();
    const key = await env.key("alice", ["user"]);
    const created = await (await app(call("POST", "/v1/todos", { key, body: { title: "t" } })))
      .json();
    const first = await app(call("POST", `/v1/todos/${created.id}/complete`, { key }));
    assert.equal(first.status, 200);
    const done = await first.json();
    assert.equal(done.status, "completed");
    assert.match(done.completedAt, US_TIME);
    // real clock: the clock moves on, so a second completion would stamp a later completedAt
    await new Promise((r) => setTimeout(r, 5));
    const again = await app(call("POST", `/v1/todos/${created.id}/complete`, { key }));
    assert.equal(again.status, 200);
    assert.deepEqual(await again.json(), done);
    const fetched = await (await app(call("GET", `/v1/todos/${created.id}`, { key }))).json();
    assert.deepEqual(fetched, done);
    await problem(
      await app(call("POST", `/v1/todos/${crypto.randomUUID()}/complete`, { key })),
      404,
    );
  },

  "wrong methods are 405 with Allow, unknown paths 404": async (env) => {
    const app = env.app();
    const key = await env.key("alice", ["user"]);
    const res = await app(call("DELETE", "/v1/todos", { key }));
    await problem(res, 405);
    assert.equal(res.headers.get("allow"), "GET, HEAD, POST");
    const one = await app(call("PUT", `/v1/todos/${crypto.randomUUID()}`, { key }));
    assert.equal(one.headers.get("allow"), "GET, HEAD");
    await problem(one, 405);
    await problem(await app(call("GET", "/v2/todos", { key })), 404);
  },

  "$schema follows X-Forwarded-Host and uses https for other hosts": async (env) => {
    const app = env.app();
    const key = await env.key("alice", ["user"]);
    const res = await app(
      call("GET", "/v1/todos", { key, headers: { "x-forwarded-host": "todo.example" } }),
    );
    assert.equal(
      (await res.json()).$schema,
      "https://todo.example/schemas/ListTodosOutputBody.json",
    );
  },

  "$schema is per schema, host and scheme, whatever came before (the head is kept per client)":
    async (env) => {
      const app = env.app();
      const key = await env.key("alice", ["user"]);
      const schemaOf = async (headers: HeadersInit, url?: string) => {
        const req = call("GET", "/v1/todos", { key, headers });
        const res = await app(url ? new Request(url, req) : req);
        assert.equal(
          res.headers.get("link"),
          '</schemas/ListTodosOutputBody.json>; rel="describedBy"',
        );
        return (await res.json()).$schema;
      };
      for (let i = 0; i < 2; i++) {
        assert.equal(
          await schemaOf({ "x-forwarded-host": "a.example" }),
          "https://a.example/schemas/ListTodosOutputBody.json",
        );
        assert.equal(
          await schemaOf({ "x-forwarded-host": "b.example" }),
          "https://b.example/schemas/ListTodosOutputBody.json",
        );
        assert.equal(
          await schemaOf({ "x-forwarded-host": "localhost:1" }),
          "http://localhost:1/schemas/ListTodosOutputBody.json",
        );
        assert.equal(
          await schemaOf({ "x-forwarded-host": "localhost:1" }, "https://localhost:1/v1/todos"),
          "https://localhost:1/schemas/ListTodosOutputBody.json",
        );
        assert.equal(
          await schemaOf({ forwarded: 'host="c.example"' }),
          "https://c.example/schemas/ListTodosOutputBody.json",
        );
      }
      // Past the bound the heads are still right, made per request.
      for (let i = 0; i < 300; i++) {
        assert.equal(
          await schemaOf({ "x-forwarded-host": `h${i}.example` }),
          `https://h${i}.example/schemas/ListTodosOutputBody.json`,
        );
      }
    },

  "GET /schemas/{name}.json serves each schema with file refs, 404 otherwise": async (env) => {
    const app = env.app();
    const res = await app(call("GET", "/schemas/ListTodosOutputBody.json"));
    assert.equal(res.status, 200);
    const schema = await res.json();
    assert.equal(schema.properties.todos.items.$ref, "/schemas/Todo.json");
    assert.equal((await app(call("GET", "/schemas/Nope.json"))).status, 404);
  },

  "GET /healthz is 200 without a key and /readyz names its checks": async (env) => {
    const app = env.app();
    const health = await app(call("GET", "/healthz"));
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: "ok" });
    const ready = await app(call("GET", "/readyz"));
    assert.equal(ready.status, 200);
    const body = await ready.json();
    assert.equal(body.status, "ready");
    assert.deepEqual(Object.keys(body.checks).sort(), ["datastore", "migrations"]);
  },

  "GET /readyz is 503 naming migrations while one is pending": async (env) => {
    const app = env.app({
      migrator: {
        pending: () => Promise.resolve([{ version: 9, name: "x", up: "", down: "", checksum: "" }]),
      },
    });
    const res = await app(call("GET", "/readyz"));
    assert.equal(res.status, 503);
    const body = await res.json();
    assert.equal(body.status, "not_ready");
    assert.equal(body.checks.migrations.status, "fail");
    assert.match(body.checks.migrations.error, /1 pending/);
    assert.equal(body.checks.datastore.status, "ok");
  },

  "GET /readyz is 503 draining once the shutdown starts, while the API keeps serving": async (
    env,
  ) => {
    const shutdown = new AbortController();
    const app = env.app({ shutdownSignal: shutdown.signal });
    const key = await env.key("alice", ["user"]);
    assert.equal((await app(call("GET", "/readyz"))).status, 200);
    shutdown.abort();
    const res = await app(call("GET", "/readyz"));
    assert.equal(res.status, 503);
    assert.deepEqual(await res.json(), { status: "not_ready", reason: "draining", checks: {} });
    const health = await app(call("GET", "/healthz"));
    assert.equal(health.status, 200);
    await health.body?.cancel();
    const list = await app(call("GET", "/v1/todos", { key }));
    assert.equal(list.status, 200);
    await list.body?.cancel();
  },

  "concurrent creates all succeed with distinct ids": async (env) => {
    const app = env.app();
    const key = await env.key("alice", ["user"]);
    const results = await Promise.all(
      Array.from(
        { length: 50 },
        (_, i) => app(call("POST", "/v1/todos", { key, body: { title: `t${i}` } })),
      ),
    );
    const ids = new Set<string>();
    for (const res of results) {
      assert.equal(res.status, 201);
      ids.add((await res.json()).id);
    }
    assert.equal(ids.size, 50);
    const page = await (await app(call("GET", "/v1/todos?limit=100", { key }))).json();
    assert.equal(page.todos.length, 50);
  },
});
