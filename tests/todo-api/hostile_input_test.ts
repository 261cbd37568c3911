/**
 * Hostile input against the real todo-api process on both backends: the kit's corpus (invalid
 * Host, invented and lowercase methods, 100 000-deep JSON, 10 MB bodies, control characters,
 * stalled bodies) on every route (the `/v1/keys` routes with an admin key, so input reaches the
 * validator), plus todo-api's own (NUL, BOM, unpaired surrogates in titles, forged cursors) and
 * the keys corpus (forged ids, a user key on every admin route, huge and hostile key bodies).
 * Never a 5xx, and the server still creates and lists todos afterwards. The process runs as
 * shipped (tests/_shipped.ts).
 */
import assert from "node:assert/strict";
import { type HostileCase, hostileCases, sendRaw } from "@svc/testing/hostile";
import { withoutPostgres } from "../../services/todo-api/_test_support.ts";
import { LISTEN, migratedTarget, run, startServe } from "./_test_support.ts";

const ID = "00000000-0000-4000-8000-000000000000";
const ROUTES: [string, string][] = [
  ["/v1/todos", "POST"],
  [`/v1/todos/${ID}`, "GET"],
  [`/v1/todos/${ID}/complete`, "POST"],
  ["/v1/keys", "POST"],
  [`/v1/keys/${ID}`, "GET"],
  [`/v1/keys/${ID}/revoke`, "POST"],
  ["/healthz", "GET"],
  ["/readyz", "GET"],
  ["/openapi.yaml", "GET"],
  ["/schemas/TodoBody.json", "GET"],
];

const enc = new TextEncoder();

/** todo-api's own corpus: characters Postgres cannot store, and cursors nobody minted. */
function todoCases(host: string, key: string): HostileCase[] {
  const head = (method: string, target: string, extra: string[] = []) =>
    [`${method} ${target} HTTP/1.1`, `host: ${host}`, `x-api-key: ${key}`, ...extra].join("\r\n");
  const json = (name: string, text: string): HostileCase => {
    const body = enc.encode(text);
    return {
      name,
      head: head("POST", "/v1/todos", [
        "content-type: application/json",
        `content-length: ${body.length}`,
        "connection: close",
      ]),
      body,
    };
  };
  const cursor = (name: string, value: string): HostileCase => ({
    name,
    head: head("GET", `/v1/todos?cursor=${value}`, ["connection: close"]),
  });
  const forged = btoa(JSON.stringify({ t: "2024-01-01T00:00:00.000000Z", id: ID }))
    .replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
  return [
    json("NUL in title", '{"title":"a\\u0000b"}'),
    json("raw NUL byte in body", '{"title":"a\u0000b"}'),
    json("BOM before the body", '\ufeff{"title":"x"}'),
    json("title is a BOM", '{"title":"\\ufeff"}'),
    json("unpaired high surrogate", '{"title":"\\ud800"}'),
    json("unpaired low surrogate", '{"title":"a\\udc00b"}'),
    json("C1 controls", '{"title":"\\u0085\\u009f"}'),
    json(
      "title as object 10 000 deep",
      '{"title":' + "[".repeat(10_000) + "]".repeat(10_000) + "}",
    ),
    json("title of 1 MB", `{"title":"${"x".repeat(1_000_000)}"}`),
    json("unknown property __proto__", '{"title":"x","__proto__":{"admin":true}}'),
    cursor("forged cursor, no signature", forged),
    cursor("forged cursor, bad signature", `${forged}.AAAA`),
    cursor("cursor of NUL", "%00"),
    cursor("cursor of 100 000 chars", "a".repeat(100_000)),
    cursor("cursor with invalid UTF-8", "%ff%fe.%c0%af"),
    cursor("limit out of range", "x&limit=-1e309"),
    {
      name: "invented method on a todo",
      head: head("BREW", `/v1/todos/${ID}`, ["connection: close"]),
    },
    {
      name: "id that is not a UUID",
      head: head("GET", "/v1/todos/%00..%2f", ["connection: close"]),
    },
  ];
}

/** The keys corpus: forged ids, a user key on admin routes, hostile and huge key bodies. */
function keyCases(host: string, admin: string, user: string): (HostileCase & { want?: number })[] {
  const head = (method: string, target: string, key: string, extra: string[] = []) =>
    [`${method} ${target} HTTP/1.1`, `host: ${host}`, `x-api-key: ${key}`, ...extra].join("\r\n");
  const post = (name: string, text: string | Uint8Array, want?: number, key = admin) => {
    const body = typeof text === "string" ? enc.encode(text) : text;
    return {
      name,
      want,
      head: head("POST", "/v1/keys", key, [
        "content-type: application/json",
        `content-length: ${body.length}`,
        "connection: close",
      ]),
      body,
    };
  };
  const get = (name: string, target: string, want?: number, key = admin) => ({
    name,
    want,
    head: head("GET", target, key, ["connection: close"]),
  });
  const revoke = (name: string, target: string, want?: number, key = admin) => ({
    name,
    want,
    head: head("POST", target, key, ["content-length: 0", "connection: close"]),
  });
  const forgedIds = [
    "00000000-0000-0000-0000-000000000000",
    "ffffffff-ffff-ffff-ffff-ffffffffffff",
    "%00",
    "..%2f..%2fapi_keys",
    "'%20or%201=1--",
    "a".repeat(10_000),
    "%ff%fe",
    "00000000-0000-4000-8000-00000000000%00",
  ];
  const cases: (HostileCase & { want?: number })[] = [];
  for (const id of forgedIds) {
    cases.push(get(`forged id ${id.slice(0, 24)}`, `/v1/keys/${id}`, 404));
    cases.push(revoke(`revoke forged id ${id.slice(0, 24)}`, `/v1/keys/${id}/revoke`, 404));
  }
  const valid = '{"subject":"mallory","roles":["admin"]}';
  cases.push(
    post("a user key creating an admin key", valid, 403, user),
    get("a user key listing keys", "/v1/keys", 403, user),
    get("a user key reading a key", `/v1/keys/${ID}`, 403, user),
    revoke("a user key revoking a key", `/v1/keys/${ID}/revoke`, 403, user),
    get("a forged key listing keys", "/v1/keys", 401, "todo_" + "A".repeat(43)),
    post("subject with NUL", '{"subject":"a\\u0000b","roles":["user"]}', 422),
    post("subject unpaired surrogate", '{"subject":"\\ud800","roles":["user"]}', 422),
    post("subject of 1 MB", `{"subject":"${"x".repeat(1_000_000)}","roles":["user"]}`, 422),
    post("100 000 roles", `{"subject":"s","roles":[${'"user",'.repeat(99_999)}"user"]}`, 422),
    post("roles 10 000 deep", `{"subject":"s","roles":${"[".repeat(10_000)}${"]".repeat(10_000)}}`),
    post("role with SQL", '{"subject":"s","roles":["user\',\'admin"]}', 422),
    post("role with comma", '{"subject":"s","roles":["user,admin"]}', 422),
    post(
      "expiresAt year 0",
      '{"subject":"s","roles":["user"],"expiresAt":"0000-01-01T00:00:00Z"}',
      422,
    ),
    post(
      "expiresAt year 275761",
      '{"subject":"s","roles":["user"],"expiresAt":"275761-01-01T00:00:00Z"}',
      422,
    ),
    post(
      "expiresAt of 1 MB",
      `{"subject":"s","roles":["user"],"expiresAt":"${"9".repeat(1_000_000)}"}`,
      422,
    ),
    post("expiresAt number", '{"subject":"s","roles":["user"],"expiresAt":1e309}', 422),
    post("__proto__ in key body", '{"subject":"s","roles":["user"],"__proto__":{"x":1}}', 422),
    post("key body of 10 MB", enc.encode(`{"subject":"${"x".repeat(10 * 1024 * 1024)}"}`), 413),
    get("key list, forged cursor", "/v1/keys?cursor=eyJ2IjoxfQ.AAAA", 400),
    get("key list, limit 2^63", "/v1/keys?limit=9223372036854775808", 422),
    get("key list, limit -2^63", "/v1/keys?limit=-9223372036854775808", 422),
  );
  return cases;
}

for (const backend of ["pglite", "postgres"] as const) {
  Deno.test({
    name: `hostile input on every route: never a 5xx, and the server lives on [${backend}]`,
    ignore: backend === "postgres" && withoutPostgres(import.meta.url, "postgres backend"),
    sanitizeResources: false,
    sanitizeOps: false,
    async fn(t) {
      const db = await migratedTarget(backend);
      try {
        const root = await run(["keys", "create", "--subject", "root", "--role", "admin"], db.env);
        assert.equal(root.code, 0, root.stderr);
        const admin = root.stdout.trim();
        const svc = await startServe([...LISTEN, "--body-read-timeout", "1s"], db.env);
        try {
          // The user key through the API (a second `keys create` would be a second process).
          const eve = await fetch(`${svc.url}/v1/keys`, {
            method: "POST",
            headers: { "x-api-key": admin, "content-type": "application/json" },
            body: JSON.stringify({ subject: "eve", roles: ["user"] }),
          });
          assert.equal(eve.status, 201);
          const key: string = (await eve.json()).key;
          const host = new URL(svc.url).host;
          for (const [path, bodyMethod] of ROUTES) {
            await t.step(path, async () => {
              const failures: string[] = [];
              const huge = path === "/v1/todos" || path === "/v1/keys";
              const cases = hostileCases({
                path,
                host,
                bodyMethod,
                huge,
                headers: { "x-api-key": path.startsWith("/v1/keys") ? admin : key },
              });
              for (const c of cases) {
                const res = await sendRaw(svc.url, c, { stallMs: 200, timeoutMs: 20_000 });
                if (res.status >= 500) failures.push(`${c.name}: ${res.text.split("\r\n")[0]}`);
              }
              assert.deepEqual(failures, []);
            });
          }
          await t.step("todo-api's corpus: NUL, BOM, surrogates, forged cursors", async () => {
            const failures: string[] = [];
            for (const c of todoCases(host, key)) {
              const res = await sendRaw(svc.url, c, { timeoutMs: 20_000 });
              if (res.status >= 500 || res.status === 0) {
                failures.push(`${c.name}: ${res.text.split("\r\n")[0] || "no answer"}`);
              }
              if (c.name === "NUL in title") assert.equal(res.status, 422, res.text);
              if (c.name.startsWith("forged cursor")) assert.equal(res.status, 400, res.text);
            }
            assert.deepEqual(failures, []);
          });
          await t.step(
            "the keys corpus: forged ids, user key on admin routes, huge bodies",
            async () => {
              const failures: string[] = [];
              for (const c of keyCases(host, admin, key)) {
                const res = await sendRaw(svc.url, c, { timeoutMs: 20_000 });
                if (res.status >= 500 || res.status === 0) {
                  failures.push(`${c.name}: ${res.text.split("\r\n")[0] || "no answer"}`);
                } else if (c.want !== undefined && res.status !== c.want) {
                  failures.push(`${c.name}: ${res.status}, expected ${c.want}`);
                }
              }
              assert.deepEqual(failures, []);
              // Nothing the corpus sent created a key: eve and root only.
              const listed = await fetch(`${svc.url}/v1/keys`, { headers: { "x-api-key": admin } });
              const subjects = (await listed.json()).keys.map((k: { subject: string }) =>
                k.subject
              );
              assert.deepEqual(subjects.sort(), ["eve", "root"]);
            },
          );
          await t.step("the server is alive and well afterwards", async () => {
            const headers = { "x-api-key": key, "content-type": "application/json" };
            const made = await fetch(`${svc.url}/v1/todos`, {
              method: "POST",
              headers,
              body: JSON.stringify({ title: "after" }),
            });
            assert.equal(made.status, 201);
            const todo = await made.json();
            const list = await fetch(`${svc.url}/v1/todos?limit=100`, { headers });
            assert.equal(list.status, 200);
            const titles = (await list.json()).todos.map((x: { title: string }) => x.title);
            assert.ok(titles.includes("after"), JSON.stringify(titles));
            assert.equal(todo.title, "after");
          });
        } finally {
          assert.equal(await svc.stop(), 0);
        }
      } finally {
        await db.cleanup();
      }
    },
  });
}
