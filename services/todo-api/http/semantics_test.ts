/**
 * HTTP semantics a client can rely on: HEAD on every GET route, one rule for the two credential
 * headers, the Content-Type rule, and rejected query values echoed as sent.
 */
import assert from "node:assert/strict";
import { backendSuite, call } from "../_test_support.ts";

/** Headers that must match between GET and HEAD (all but the per-request id). */
function comparable(res: Response): [string, string][] {
  return [...res.headers].filter(([k]) => k !== "x-request-id");
}

backendSuite(import.meta.url, "HTTP semantics", {
  "HEAD answers every GET route with the GET's status and headers": async (env) => {
    const app = env.app();
    const admin = await env.key("root", ["admin"]);
    const todo = await (await app(call("POST", "/v1/todos", { key: admin, body: { title: "t" } })))
      .json();
    const [keyId] = (await env.db.query<{ id: string }>("select id::text as id from api_keys"))
      .map((r) => r.id);
    for (
      const path of [
        "/v1/todos",
        "/v1/todos?limit=1",
        `/v1/todos/${todo.id}`,
        "/v1/keys",
        `/v1/keys/${keyId}`,
        "/schemas/Todo.json",
        "/schemas/ApiKey.json",
        "/healthz",
        "/openapi.json",
        "/v1/todos/00000000-0000-4000-8000-000000000000",
        "/v1/todos?limit=0",
      ]
    ) {
      const get = await app(call("GET", path, { key: admin }));
      const head = await app(call("HEAD", path, { key: admin }));
      assert.equal(head.status, get.status, path);
      assert.deepEqual(comparable(head), comparable(get), path);
      // Deno.serve sends no body for HEAD (shared/http/route_test.ts checks the wire).
      await get.body?.cancel();
      await head.body?.cancel();
    }
    const anon = await app(call("HEAD", "/v1/todos"));
    assert.equal(anon.status, 401, "HEAD needs a key as GET does");
    await anon.body?.cancel();
    const wrong = await app(call("DELETE", "/v1/todos", { key: admin }));
    assert.equal(wrong.headers.get("allow"), "GET, HEAD, POST");
    await wrong.body?.cancel();
    const complete = await app(call("HEAD", `/v1/todos/${todo.id}/complete`, { key: admin }));
    assert.equal(complete.status, 405, "no GET, no HEAD");
    assert.equal(complete.headers.get("allow"), "POST");
    await complete.body?.cancel();
  },

  "an empty credential header counts as absent, whichever of the two it is": async (env) => {
    const app = env.app();
    const key = await env.key("alice", ["user"]);
    const cases: [Record<string, string>, number][] = [
      [{ "x-api-key": "", authorization: `Bearer ${key}` }, 200],
      [{ "x-api-key": key, authorization: "" }, 200],
      [{ "x-api-key": " ", authorization: `Bearer ${key}` }, 200],
      [{ "x-api-key": key, authorization: " " }, 200],
      [{ "x-api-key": "", authorization: "" }, 401],
      [{ "x-api-key": "" }, 401],
      [{ authorization: "" }, 401],
      [{ "x-api-key": key, authorization: "Bearer" }, 401],
      [{ "x-api-key": "todo_x", authorization: `Bearer ${key}` }, 401],
      [{ "x-api-key": key, authorization: "Bearer todo_x" }, 401],
    ];
    for (const [headers, status] of cases) {
      const res = await app(call("GET", "/v1/todos", { headers }));
      assert.equal(res.status, status, JSON.stringify(headers));
      if (status === 401 && !headers.authorization?.startsWith("Bearer")) {
        assert.equal((await res.json()).detail, "missing API key", JSON.stringify(headers));
      } else await res.body?.cancel();
    }
  },

  "Content-Type: none and empty are one 415; only UTF-8 JSON is read": async (env) => {
    const app = env.app();
    const key = await env.key("alice", ["user"]);
    const post = (type: string | null) => {
      const headers = new Headers({ "x-api-key": key });
      if (type !== null) headers.set("content-type", type);
      // A Blob body: a string body would make `new Request` add text/plain itself.
      return app(
        new Request("http://127.0.0.1:8080/v1/todos", {
          method: "POST",
          headers,
          body: new Blob(['{"title":"t"}']),
        }),
      );
    };
    const cases: [string | null, number, string?][] = [
      [null, 415, "expected Content-Type: application/json"],
      ["", 415, "expected Content-Type: application/json"],
      ["application/json;charset=UTF-16", 415, "expected application/json in charset utf-8"],
      ['application/json; charset="utf-16le"', 415, "expected application/json in charset utf-8"],
      ["text/plain", 415, "expected application/json"],
      ["application/json", 201],
      ["application/json; charset=UTF-8", 201],
      ['application/json; charset="utf-8"', 201],
    ];
    for (const [type, status, detail] of cases) {
      const res = await post(type);
      assert.equal(res.status, status, String(type));
      const body = await res.json();
      if (detail) assert.equal(body.detail, detail, String(type));
    }
  },

  "a rejected limit is echoed as sent": async (env) => {
    const app = env.app();
    const key = await env.key("alice", ["user"]);
    for (const path of ["/v1/todos", "/v1/keys"]) {
      const admin = await env.key("root", ["admin"]);
      const res = await app(
        call("GET", `${path}?limit=99999999999999999999`, {
          key: path === "/v1/keys" ? admin : key,
        }),
      );
      assert.equal(res.status, 422);
      const [error] = (await res.json()).errors;
      assert.deepEqual(error, {
        location: "query.limit",
        message: "expected number <= 100",
        value: "99999999999999999999",
      });
    }
  },
});
