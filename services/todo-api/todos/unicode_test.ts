import assert from "node:assert/strict";
import { backendSuite, call } from "../_test_support.ts";

/** Titles every backend must store and return exactly as sent. */
const STORABLE: Record<string, string> = {
  "leading BOM": "\ufeffmilk",
  "BOM only": "\ufeff",
  "BOM inside": "a\ufeffb",
  "combining marks": "e\u0301\u0308 n\u0303",
  "4-byte emoji": "😀🧑‍🚀👍🏽",
  "right-to-left": "\u05e9\u05dc\u05d5\u05dd \u202eabc\u202c",
  "C1 controls": "a\u0085b\u009fc",
  "C0 controls but NUL": "a\u0001\u0007\u001fb\t\n\r",
  "noncharacters": "\ufdd0\uffff",
  "astral plane": "\u{10ffff}\u{1d11e}",
};

/** Titles no backend can store as sent: refused with 422 at body.title before any SQL. */
const UNSTORABLE: Record<string, [string, string]> = {
  "NUL inside": ["a\u0000b", "expected string without NUL (U+0000) characters"],
  "NUL only": ["\u0000", "expected string without NUL (U+0000) characters"],
  "lone high surrogate": ["a\ud800b", "expected valid Unicode (unpaired surrogate)"],
  "lone low surrogate": ["\udc00", "expected valid Unicode (unpaired surrogate)"],
  "reversed pair": ["\udc00\ud800", "expected valid Unicode (unpaired surrogate)"],
};

backendSuite(import.meta.url, "todo titles across the Unicode corpus", {
  "every storable title comes back identical from create, get and list": async (env) => {
    const app = env.app();
    const key = await env.key("alice", ["user"]);
    const ids = new Map<string, string>();
    for (const [name, title] of Object.entries(STORABLE)) {
      const res = await app(call("POST", "/v1/todos", { key, body: { title } }));
      assert.equal(res.status, 201, `${name}: ${await res.clone().text()}`);
      const created = await res.json();
      assert.equal(created.title, title, name);
      ids.set(created.id, title);
      const got = await (await app(call("GET", `/v1/todos/${created.id}`, { key }))).json();
      assert.equal(got.title, title, `${name} (get)`);
    }
    const page = await (await app(call("GET", "/v1/todos?limit=100", { key }))).json();
    assert.equal(page.todos.length, ids.size);
    for (const todo of page.todos) assert.equal(todo.title, ids.get(todo.id));
  },

  "NUL and unpaired surrogates are 422 at body.title, and nothing is stored": async (env) => {
    const app = env.app();
    const key = await env.key("alice", ["user"]);
    for (const [name, [title, message]] of Object.entries(UNSTORABLE)) {
      // JSON.stringify keeps lone surrogates as \u escapes, as a hostile client would send them.
      const res = await app(call("POST", "/v1/todos", { key, body: { title } }));
      assert.equal(res.status, 422, name);
      const body = await res.json();
      assert.deepEqual(
        body.errors.map((e: { location: string; message: string }) => [e.location, e.message]),
        [["body.title", message]],
        name,
      );
    }
    const page = await (await app(call("GET", "/v1/todos", { key }))).json();
    assert.equal(page.todos.length, 0);
  },

  "a raw NUL escape in the body text is refused the same way": async (env) => {
    const app = env.app();
    const key = await env.key("alice", ["user"]);
    const res = await app(call("POST", "/v1/todos", { key, raw: '{"title":"a\\u0000b"}' }));
    assert.equal(res.status, 422);
    assert.equal((await res.json()).errors[0].location, "body.title");
  },
});
