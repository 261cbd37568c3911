import assert from "node:assert/strict";
import { createApiKeyStore, keyDigest } from "../mod.ts";
import { backendSuite, call } from "../_test_support.ts";

const ROUTES = (id: string) =>
  [
    ["GET", "/v1/todos", undefined],
    ["POST", "/v1/todos", { title: "t" }],
    ["GET", `/v1/todos/${id}`, undefined],
    ["POST", `/v1/todos/${id}/complete`, undefined],
  ] as const;

backendSuite(import.meta.url, "todo API keys", {
  "role matrix: user and admin may use every route, other roles get 403, no key 401": async (
    env,
  ) => {
    const app = env.app();
    const admin = await env.key("root", ["admin"]);
    const user = await env.key("alice", ["user"]);
    const auditor = await env.key("carol", ["auditor"]);
    const both = await env.key("dave", ["auditor", "user"]);
    const created =
      await (await app(call("POST", "/v1/todos", { key: admin, body: { title: "t" } }))).json();
    const mine = await (await app(call("POST", "/v1/todos", { key: user, body: { title: "t" } })))
      .json();
    for (const [method, path, body] of ROUTES(created.id)) {
      const expectAdmin = method === "POST" && path === "/v1/todos" ? 201 : 200;
      assert.equal((await app(call(method, path, { key: admin, body }))).status, expectAdmin, path);
      assert.equal((await app(call(method, path, { key: auditor, body }))).status, 403, path);
      assert.equal((await app(call(method, path, { body }))).status, 401, path);
      assert.equal(
        (await app(call(method, path, { key: "todo_unknown", body }))).status,
        401,
        path,
      );
    }
    for (const [method, path, body] of ROUTES(mine.id)) {
      const expected = method === "POST" && path === "/v1/todos" ? 201 : 200;
      assert.equal((await app(call(method, path, { key: user, body }))).status, expected, path);
      // a key with an extra, unknown role keeps the rights of its known one (dave is a user,
      // alice's todo is not his: 404, never 403, so existence is not revealed)
      const dave = path.startsWith("/v1/todos/") ? 404 : expected;
      assert.equal((await app(call(method, path, { key: both, body }))).status, dave, path);
    }
    // a user cannot reach the admin's todo either
    assert.equal((await app(call("GET", `/v1/todos/${created.id}`, { key: user }))).status, 404);
  },

  "401 carries WWW-Authenticate and a problem body; 403 a problem body": async (env) => {
    const app = env.app();
    const res = await app(call("GET", "/v1/todos"));
    assert.equal(res.status, 401);
    assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer/);
    const body = await res.json();
    assert.equal(body.title, "Unauthorized");
    assert.equal(body.$schema, "http://127.0.0.1:8080/schemas/ErrorModel.json");
    const forbidden = await app(call("GET", "/v1/todos", { key: await env.key("c", ["auditor"]) }));
    assert.equal(forbidden.status, 403);
    assert.equal((await forbidden.json()).title, "Forbidden");
  },

  "Authorization: Bearer works; malformed schemes and conflicting headers are 401": async (env) => {
    const app = env.app();
    const key = await env.key("alice", ["user"]);
    const ok = await app(call("GET", "/v1/todos", { headers: { authorization: `Bearer ${key}` } }));
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
    for (
      const headers of [
        { authorization: `Basic ${key}` } as Record<string, string>,
        { authorization: "Bearer" },
        { authorization: `Bearer ${key}`, "x-api-key": "todo_other" },
      ]
    ) {
      const res = await app(call("GET", "/v1/todos", { headers }));
      assert.equal(res.status, 401, JSON.stringify(headers));
      await res.body?.cancel();
    }
    const same = await app(
      call("GET", "/v1/todos", { key, headers: { authorization: `Bearer ${key}` } }),
    );
    assert.equal(same.status, 200);
    await same.body?.cancel();
  },

  "only the SHA-256 digest is stored, and a revoked key is 401": async (env) => {
    const app = env.app();
    const store = createApiKeyStore(env.db);
    const { key, id } = await store.create({ subject: "alice", roles: ["user"] });
    const rows = await env.db.query<{ digest: string }>("select digest from api_keys");
    assert.deepEqual(rows, [{ digest: keyDigest(key) }]);
    assert.equal((await app(call("GET", "/v1/todos", { key }))).status, 200);
    const first = await store.revoke(id);
    assert.equal(first?.changed, true);
    const again = await store.revoke(id);
    assert.equal(again?.changed, false);
    assert.equal(again?.record.revokedAt, first?.record.revokedAt, "the first revokedAt stays");
    assert.equal(await store.revoke("00000000-0000-4000-8000-000000000000"), undefined);
    assert.equal(await store.revoke("not-a-uuid"), undefined);
    assert.equal((await app(call("GET", "/v1/todos", { key }))).status, 401);
    const [listed] = await store.list();
    assert.equal(listed.subject, "alice");
    assert.ok(listed.revokedAt);
  },

  "authorization disabled lets keyless calls act as admin": async (env) => {
    const app = env.app({ authzEnabled: false });
    const res = await app(call("POST", "/v1/todos", { body: { title: "t" } }));
    assert.equal(res.status, 201);
    const todo = await res.json();
    assert.equal((await app(call("GET", `/v1/todos/${todo.id}`))).status, 200);
    const list = await (await app(call("GET", "/v1/todos"))).json();
    assert.equal(list.todos.length, 1);
  },

  "operational routes need no key": async (env) => {
    const app = env.app();
    for (const path of ["/healthz", "/readyz", "/schemas/Todo.json"]) {
      const res = await app(call("GET", path));
      assert.equal(res.status, 200, path);
      await res.body?.cancel();
    }
  },
});
