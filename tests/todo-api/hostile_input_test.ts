/**
 * Hostile input against the real todo-api process on both backends: the kit's corpus (invalid
 * Host, invented and lowercase methods, 100 000-deep JSON, 10 MB bodies, control characters,
 * stalled bodies) on every route, plus todo-api's own (NUL, BOM, unpaired surrogates in titles,
 * forged cursors). Never a 5xx, and the server still creates and lists todos afterwards.
 */
import assert from "node:assert/strict";
import { type HostileCase, hostileCases, sendRaw } from "@svc/shared/hostile";
import { startService } from "@svc/shared/testing";
import { withoutPostgres } from "../../services/todo-api/_test_support.ts";
import { ENTRY, LISTEN, run, target } from "./_test_support.ts";

const ID = "00000000-0000-4000-8000-000000000000";
const ROUTES: [string, string][] = [
  ["/v1/todos", "POST"],
  [`/v1/todos/${ID}`, "GET"],
  [`/v1/todos/${ID}/complete`, "POST"],
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

for (const backend of ["pglite", "postgres"] as const) {
  Deno.test({
    name: `hostile input on every route: never a 5xx, and the server lives on [${backend}]`,
    ignore: backend === "postgres" && withoutPostgres(import.meta.url, "postgres backend"),
    sanitizeResources: false,
    sanitizeOps: false,
    async fn(t) {
      const db = await target(backend);
      try {
        assert.equal((await run(["migrate", "up"], db.env)).code, 0);
        const created = await run(["keys", "create", "--subject", "eve", "--role", "user"], db.env);
        assert.equal(created.code, 0, created.stderr);
        const key = created.stdout.trim();
        const svc = await startService({
          entry: ENTRY,
          args: ["serve", ...LISTEN, "--body-read-timeout", "1s"],
          env: db.env,
          timeoutMs: 60_000,
        });
        try {
          const host = new URL(svc.url).host;
          for (const [path, bodyMethod] of ROUTES) {
            await t.step(path, async () => {
              const failures: string[] = [];
              const huge = path === "/v1/todos";
              const cases = hostileCases({
                path,
                host,
                bodyMethod,
                huge,
                headers: { "x-api-key": key },
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
