import assert from "node:assert/strict";
import { createLogger } from "@svc/shared/log";
import { backendSuite, call } from "../_test_support.ts";
import { keyDigest } from "./api_keys.ts";
import { createKeyChanges } from "./key_changes.ts";

const ID = "00000000-0000-4000-8000-000000000000";

/** The four key routes, for role checks. */
const KEY_ROUTES = (id: string) =>
  [
    ["POST", "/v1/keys", { subject: "x", roles: ["user"] }],
    ["GET", "/v1/keys", undefined],
    ["GET", `/v1/keys/${id}`, undefined],
    ["POST", `/v1/keys/${id}/revoke`, undefined],
  ] as const;

function logCapture() {
  const lines: string[] = [];
  return { lines, logger: createLogger({ write: (line) => lines.push(line) }) };
}

backendSuite(import.meta.url, "key management over /v1/keys", {
  "an admin creates a key: 201, the key once, Location; get and list never show it": async (
    env,
  ) => {
    const { lines, logger } = logCapture();
    const app = env.app({ logger });
    const admin = await env.key("root", ["admin"]);
    const res = await app(call("POST", "/v1/keys", {
      key: admin,
      body: { subject: "alice", roles: ["user", "user"] },
    }));
    assert.equal(res.status, 201);
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.equal(res.headers.get("link"), '</schemas/CreateKeyOutputBody.json>; rel="describedBy"');
    const made = await res.json();
    assert.equal(res.headers.get("location"), `/v1/keys/${made.id}`);
    assert.match(made.key, /^todo_[A-Za-z0-9_-]{43}$/);
    assert.equal(made.subject, "alice");
    assert.deepEqual(made.roles, ["user"], "duplicates dropped");
    assert.equal(made.status, "active");
    assert.equal(made.digestPrefix, keyDigest(made.key).slice(0, 12));
    assert.equal(made.$schema, "http://127.0.0.1:8080/schemas/CreateKeyOutputBody.json");
    // The new key works at once.
    const todo = await app(call("POST", "/v1/todos", { key: made.key, body: { title: "t" } }));
    assert.equal(todo.status, 201);
    await todo.body?.cancel();

    const got = await app(call("GET", `/v1/keys/${made.id}`, { key: admin }));
    assert.equal(got.status, 200);
    const text = await got.text();
    assert.equal(text.includes(made.key), false);
    assert.equal(text.includes(keyDigest(made.key)), false, "never the full digest");
    const record = JSON.parse(text);
    assert.deepEqual(Object.keys(record), [
      "$schema",
      "id",
      "subject",
      "roles",
      "createdAt",
      "status",
      "digestPrefix",
    ]);
    const listed = await (await app(call("GET", "/v1/keys", { key: admin }))).text();
    assert.equal(listed.includes(made.key), false);
    assert.equal(listed.includes(keyDigest(made.key)), false);
    assert.equal(JSON.parse(listed).keys.length, 2);

    const audit = lines.map((l) => JSON.parse(l)).filter((l) => l.audit === "api_key");
    assert.equal(audit.length, 1);
    assert.equal(audit[0].msg ?? audit[0].message, "api key created");
    assert.equal(audit[0].keyId, made.id);
    assert.equal(audit[0].by, "root");
    assert.equal(lines.join("\n").includes(made.key), false, "no key in the log");
    assert.equal(lines.join("\n").includes(keyDigest(made.key)), false, "no digest in the log");
  },

  "revoke: 401 on the next request despite a long cache TTL; idempotent; 404 unknown": async (
    env,
  ) => {
    const { lines, logger } = logCapture();
    const app = env.app({ logger, keyCacheTtlMs: 3_600_000 });
    const admin = await env.key("root", ["admin"]);
    const made = await (await app(call("POST", "/v1/keys", {
      key: admin,
      body: { subject: "bob", roles: ["user"] },
    }))).json();
    const ok = await app(call("GET", "/v1/todos", { key: made.key }));
    assert.equal(ok.status, 200, "cached now");
    await ok.body?.cancel();
    const revoked = await app(call("POST", `/v1/keys/${made.id}/revoke`, { key: admin }));
    assert.equal(revoked.status, 200);
    const first = await revoked.json();
    assert.equal(first.status, "revoked");
    assert.ok(first.revokedAt);
    assert.equal((await app(call("GET", "/v1/todos", { key: made.key }))).status, 401);
    const again = await (await app(call("POST", `/v1/keys/${made.id}/revoke`, { key: admin })))
      .json();
    assert.equal(again.revokedAt, first.revokedAt, "the first revokedAt stays");
    const audit = lines.map((l) => JSON.parse(l)).filter((l) => l.audit === "api_key");
    assert.deepEqual(audit.map((l) => l.action), ["create", "revoke"], "one line per change");
    for (const id of [ID, "nope", "%00", "00000000-0000-4000-8000-00000000000g"]) {
      for (const path of [`/v1/keys/${id}`, `/v1/keys/${id}/revoke`]) {
        const method = path.endsWith("revoke") ? "POST" : "GET";
        const res = await app(call(method, path, { key: admin }));
        assert.equal(res.status, 404, path);
        const body = await res.json();
        assert.equal(body.detail, "key not found");
        assert.equal(body.errors[0].location, "path.id");
      }
    }
  },

  "a revocation through one app is in force at once in another sharing the generation": async (
    env,
  ) => {
    // Two apps on one database and one shared buffer: what two worker isolates have.
    const changes = new SharedArrayBuffer(4);
    const one = env.app({ keyChanges: createKeyChanges(changes), keyCacheTtlMs: 3_600_000 });
    const two = env.app({ keyChanges: createKeyChanges(changes), keyCacheTtlMs: 3_600_000 });
    const admin = await env.key("root", ["admin"]);
    const made = await (await one(call("POST", "/v1/keys", {
      key: admin,
      body: { subject: "bob", roles: ["user"] },
    }))).json();
    const ok = await two(call("GET", "/v1/todos", { key: made.key }));
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
    const r = await one(call("POST", `/v1/keys/${made.id}/revoke`, { key: admin }));
    assert.equal(r.status, 200);
    await r.body?.cancel();
    assert.equal((await two(call("GET", "/v1/todos", { key: made.key }))).status, 401);
    // Without the shared generation, the other app's cache would serve the key for its TTL.
    const alone = env.app({ keyCacheTtlMs: 3_600_000 });
    const other = await (await one(call("POST", "/v1/keys", {
      key: admin,
      body: { subject: "carl", roles: ["user"] },
    }))).json();
    const cached = await alone(call("GET", "/v1/todos", { key: other.key }));
    assert.equal(cached.status, 200);
    await cached.body?.cancel();
    await (await one(call("POST", `/v1/keys/${other.id}/revoke`, { key: admin }))).body?.cancel();
    const stale = await alone(call("GET", "/v1/todos", { key: other.key }));
    assert.equal(stale.status, 200, "bounded by the TTL only");
    await stale.body?.cancel();
  },

  "expiry by the injected clock: works before, 401 at and after, cached or not": async (env) => {
    let now = Date.parse("2030-01-01T00:00:00Z");
    const app = env.app({ now: () => now, keyCacheTtlMs: 3_600_000 });
    const admin = await env.key("root", ["admin"]);
    const made = await (await app(call("POST", "/v1/keys", {
      key: admin,
      body: { subject: "eve", roles: ["user"], expiresAt: "2030-01-01T00:00:01.000Z" },
    }))).json();
    assert.equal(made.expiresAt, "2030-01-01T00:00:01.000000Z");
    now += 999;
    const before = await app(call("GET", "/v1/todos", { key: made.key }));
    assert.equal(before.status, 200, "below the expiry");
    await before.body?.cancel();
    now += 1;
    const at = await app(call("GET", "/v1/todos", { key: made.key }));
    assert.equal(at.status, 401, "at the expiry, although cached");
    assert.equal((await at.json()).detail, "unknown API key");
    now += 1;
    assert.equal((await app(call("GET", "/v1/todos", { key: made.key }))).status, 401);
    const record = await (await app(call("GET", `/v1/keys/${made.id}`, { key: admin }))).json();
    assert.equal(record.status, "expired");
    // An expiry at or before the clock cannot be set.
    for (const expiresAt of ["2030-01-01T00:00:01.001Z", "2029-12-31T23:59:59Z"]) {
      const res = await app(call("POST", "/v1/keys", {
        key: admin,
        body: { subject: "x", roles: ["user"], expiresAt },
      }));
      assert.equal(res.status, 422, expiresAt);
      assert.equal((await res.json()).errors[0].message, "expected a time in the future");
    }
    const later = await app(call("POST", "/v1/keys", {
      key: admin,
      body: { subject: "x", roles: ["user"], expiresAt: "2030-01-01T00:00:01.002Z" },
    }));
    assert.equal(later.status, 201, "one millisecond above the clock");
    await later.body?.cancel();
  },

  "only admins: a user key, other roles and no key get 403/401 on every key route": async (
    env,
  ) => {
    const app = env.app();
    const user = await env.key("alice", ["user"]);
    const auditor = await env.key("carol", ["auditor"]);
    for (const [method, path, body] of KEY_ROUTES(ID)) {
      for (const [key, status] of [[user, 403], [auditor, 403], [undefined, 401]] as const) {
        const res = await app(call(method, path, { key, body }));
        assert.equal(res.status, status, `${method} ${path} ${key}`);
        const problem = await res.json();
        if (status === 403) assert.match(problem.detail, /do not permit keys\./);
      }
    }
    const { rows } = { rows: await env.db.query("select 1 from api_keys") };
    assert.equal(rows.length, 2, "no key was created");
  },

  "create validates every field, at, below and above each bound": async (env) => {
    let now = Date.parse("2030-01-01T00:00:00Z");
    const app = env.app({ now: () => now });
    const admin = await env.key("root", ["admin"]);
    const post = async (body: unknown) => {
      const res = await app(call("POST", "/v1/keys", { key: admin, body }));
      return { status: res.status, body: await res.json() };
    };
    const roles = (n: number) => Array.from({ length: n }, (_, i) => `r${i}`);
    const ok = [
      { subject: "a", roles: ["user"] },
      { subject: "x".repeat(200), roles: ["user"] },
      { subject: "😀".repeat(200), roles: ["admin"] },
      { subject: "s", roles: roles(16) },
      { subject: "s", roles: ["a".repeat(32)] },
      { subject: "s", roles: ["user"], expiresAt: "2030-01-01T01:00:00+01:00" + "" },
    ];
    now = Date.parse("2029-12-31T23:00:00Z");
    for (const body of ok) {
      const res = await post(body);
      assert.equal(res.status, 201, JSON.stringify(body).slice(0, 80));
    }
    const bad: [unknown, string, string][] = [
      [{ roles: ["user"] }, "body", "expected required property subject to be present"],
      [{ subject: "s" }, "body", "expected required property roles to be present"],
      [{ subject: "", roles: ["user"] }, "body.subject", "expected length >= 1"],
      [{ subject: "x".repeat(201), roles: ["user"] }, "body.subject", "expected length <= 200"],
      [{ subject: 7, roles: ["user"] }, "body.subject", "expected string"],
      [
        { subject: "a\u0000b", roles: ["user"] },
        "body.subject",
        "expected string without NUL (U+0000) characters",
      ],
      [
        { subject: "a\ud800", roles: ["user"] },
        "body.subject",
        "expected valid Unicode (unpaired surrogate)",
      ],
      [{ subject: "s", roles: [] }, "body.roles", "expected array length >= 1"],
      [{ subject: "s", roles: roles(17) }, "body.roles", "expected array length <= 16"],
      [{ subject: "s", roles: "user" }, "body.roles", "expected array"],
      [{ subject: "s", roles: [1] }, "body.roles[0]", "expected string"],
      [
        { subject: "s", roles: ["Admin"] },
        "body.roles[0]",
        "expected string to match pattern ^[a-z][a-z0-9_-]{0,31}$",
      ],
      [
        { subject: "s", roles: ["a".repeat(33)] },
        "body.roles[0]",
        "expected string to match pattern ^[a-z][a-z0-9_-]{0,31}$",
      ],
      [
        { subject: "s", roles: ["user"], expiresAt: "tomorrow" },
        "body.expiresAt",
        "expected string to be RFC 3339 date-time",
      ],
      [
        { subject: "s", roles: ["user"], expiresAt: 1 },
        "body.expiresAt",
        "expected string to be RFC 3339 date-time",
      ],
      [
        { subject: "s", roles: ["user"], expiresAt: "2031-02-30T00:00:00Z" },
        "body.expiresAt",
        "expected string to be RFC 3339 date-time",
      ],
      [
        { subject: "s", roles: ["user"], expiresAt: "2031-01-01T24:00:00Z" },
        "body.expiresAt",
        "expected string to be RFC 3339 date-time",
      ],
      [
        { subject: "s", roles: ["user"], expiresAt: "2031-01-01 00:00:00" },
        "body.expiresAt",
        "expected string to be RFC 3339 date-time",
      ],
      [{ subject: "s", roles: ["user"], admin: true }, "body.admin", "unexpected property"],
    ];
    for (const [body, location, message] of bad) {
      const res = await post(body);
      assert.equal(res.status, 422, JSON.stringify(body).slice(0, 80));
      assert.equal(res.body.detail, "validation failed");
      assert.deepEqual(
        res.body.errors.map((e: { location: string; message: string }) => [e.location, e.message]),
        [[location, message]],
        JSON.stringify(body).slice(0, 80),
      );
    }
    assert.equal((await post([])).status, 422);
    const empty = await app(call("POST", "/v1/keys", { key: admin, raw: "" }));
    assert.equal(empty.status, 400);
    const malformed = await app(call("POST", "/v1/keys", { key: admin, raw: "{" }));
    assert.equal(malformed.status, 400);
    const noType = await app(
      new Request("http://127.0.0.1:8080/v1/keys", {
        method: "POST",
        headers: { "x-api-key": admin },
        body: new Blob(['{"subject":"s","roles":["user"]}']),
      }),
    );
    assert.equal(noType.status, 415);
  },

  "list pages with nextCursor; a key-page cursor is no todo-page cursor": async (env) => {
    const app = env.app();
    const admin = await env.key("root", ["admin"]);
    for (let i = 0; i < 4; i++) await env.key(`s${i}`, ["user"]);
    const seen: string[] = [];
    let path: string | undefined = "/v1/keys?limit=2";
    let pages = 0;
    while (path) {
      const res = await app(call("GET", path, { key: admin }));
      assert.equal(res.status, 200);
      const page = await res.json();
      pages++;
      seen.push(...page.keys.map((k: { subject: string }) => k.subject));
      path = page.nextCursor
        ? `/v1/keys?limit=2&cursor=${encodeURIComponent(page.nextCursor)}`
        : undefined;
    }
    assert.equal(pages, 3, "2 + 2 + 1, the last page without nextCursor");
    // Oldest first by (createdAt, id): keys made within one microsecond may tie on createdAt.
    assert.deepEqual([...seen].sort(), ["root", "s0", "s1", "s2", "s3"]);
    const first = await (await app(call("GET", "/v1/keys?limit=1", { key: admin }))).json();
    const todoPage = await app(
      call("GET", `/v1/todos?cursor=${encodeURIComponent(first.nextCursor)}`, { key: admin }),
    );
    assert.equal(todoPage.status, 400);
    await todoPage.body?.cancel();
    const big = await app(call("GET", "/v1/keys?limit=101", { key: admin }));
    assert.equal(big.status, 422);
    assert.equal((await big.json()).errors[0].value, "101");
  },
});
