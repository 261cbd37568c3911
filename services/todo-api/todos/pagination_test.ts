import assert from "node:assert/strict";
import postgres from "postgres";
import { backendSuite, call, type SuiteEnv, TEST_DATABASE_URL } from "../_test_support.ts";

async function seed(env: SuiteEnv, owner: string, count: number, stamps: string[]) {
  // Rows share a handful of timestamps, some differing only in the microseconds, so any cursor
  // that drops precision or lacks the id tiebreaker skips or repeats rows.
  await env.db.query(
    `insert into todos (owner, title, created_at)
     select $1, 'todo ' || g, ($2::text[])[1 + g % array_length($2::text[], 1)]::timestamptz
     from generate_series(1, $3::int) g`,
    [owner, `{${stamps.join(",")}}`, count],
  );
}

async function walk(app: (r: Request) => Promise<Response>, key: string, limit: number) {
  const ids: string[] = [];
  const pages: number[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 10_000; guard++) {
    const q = `/v1/todos?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const res = await app(call("GET", q, { key }));
    assert.equal(res.status, 200);
    const body = await res.json();
    ids.push(...body.todos.map((t: { id: string }) => t.id));
    pages.push(body.todos.length);
    if (!("nextCursor" in body)) return { ids, pages };
    cursor = body.nextCursor;
  }
  throw new Error("pagination did not end");
}

const STAMPS = [
  "2026-01-01T00:00:00.123456Z",
  "2026-01-01T00:00:00.123457Z",
  "2026-01-01T00:00:00.123Z",
  "2026-01-01T00:00:00.124Z",
];

/**
 * Rows of the long walk: 250 on each of the 4 timestamps, so at both page sizes (100 and 7)
 * whole pages fall inside one timestamp and only the id tiebreaker orders them; a last page of
 * 1000 % 7 = 6 rows. (It was 3000; more rows only walked more pages of the same kind.)
 */
const ROWS = 1000;

backendSuite(import.meta.url, "todo pagination", {
  [`${ROWS} rows on 4 timestamps page without skips or repeats, oldest first`]: async (env) => {
    await seed(env, "alice", ROWS, STAMPS);
    const app = env.app();
    const key = await env.key("alice", ["user"]);
    const expected = (await env.db.query<{ id: string }>(
      "select id::text as id from todos order by created_at, id",
    )).map((r) => r.id);
    const { ids, pages } = await walk(app, key, 100);
    assert.equal(ids.length, ROWS);
    assert.equal(new Set(ids).size, ROWS);
    assert.deepEqual(ids, expected);
    assert.equal(pages.length, ROWS / 100); // the last full page carries no cursor
    const odd = await walk(app, key, 7);
    assert.deepEqual(odd.ids, expected);
    assert.equal(odd.pages.at(-1), ROWS % 7);
    assert.ok(ROWS % 7 > 0 && ROWS / STAMPS.length > 2 * 100, "the walk covers what it claims");
  },

  "createdAt keeps microseconds across pages": async (env) => {
    await seed(env, "alice", 4, STAMPS);
    const app = env.app();
    const key = await env.key("alice", ["user"]);
    const body = await (await app(call("GET", "/v1/todos", { key }))).json();
    const times = body.todos.map((t: { createdAt: string }) => t.createdAt);
    assert.deepEqual(times, [
      "2026-01-01T00:00:00.123000Z",
      "2026-01-01T00:00:00.123456Z",
      "2026-01-01T00:00:00.123457Z",
      "2026-01-01T00:00:00.124000Z",
    ]);
  },

  "limit defaults to 20 and accepts 1 and 100; 0, 101, -1 and 'x' are 422 at query.limit": async (
    env,
  ) => {
    await seed(env, "alice", 120, STAMPS);
    const app = env.app();
    const key = await env.key("alice", ["user"]);
    const page = async (q: string) =>
      await (await app(call("GET", `/v1/todos${q}`, { key }))).json();
    assert.equal((await page("")).todos.length, 20);
    assert.equal((await page("?limit=")).todos.length, 20);
    assert.equal((await page("?limit=1")).todos.length, 1);
    assert.equal((await page("?limit=2")).todos.length, 2);
    assert.equal((await page("?limit=99")).todos.length, 99);
    assert.equal((await page("?limit=100")).todos.length, 100);
    for (
      const [q, message] of [
        ["0", "expected number >= 1"],
        ["-1", "expected number >= 1"],
        ["101", "expected number <= 100"],
        ["x", "expected integer"],
        ["1.5", "expected integer"],
      ]
    ) {
      const res = await app(call("GET", `/v1/todos?limit=${q}`, { key }));
      assert.equal(res.status, 422, q);
      const body = await res.json();
      assert.equal(body.errors[0].location, "query.limit");
      assert.equal(body.errors[0].message, message);
    }
  },

  "an empty list is 200 with todos [] and no nextCursor; an exact last page has none": async (
    env,
  ) => {
    const app = env.app();
    const key = await env.key("alice", ["user"]);
    assert.deepEqual((await (await app(call("GET", "/v1/todos", { key }))).json()).todos, []);
    await seed(env, "alice", 20, STAMPS);
    const body = await (await app(call("GET", "/v1/todos", { key }))).json();
    assert.equal(body.todos.length, 20);
    assert.equal("nextCursor" in body, false);
  },

  "tampered, truncated, foreign and garbage cursors are 400 at query.cursor": async (env) => {
    await seed(env, "alice", 30, STAMPS);
    await seed(env, "bob", 30, STAMPS);
    const app = env.app();
    const alice = await env.key("alice", ["user"]);
    const bob = await env.key("bob", ["user"]);
    const admin = await env.key("root", ["admin"]);
    const first = await (await app(call("GET", "/v1/todos?limit=5", { key: alice }))).json();
    const cursor: string = first.nextCursor;
    const [payload, mac] = cursor.split(".");
    const decoded = JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/")));
    decoded.t = "2000-01-01T00:00:00.000000Z";
    const forged = btoa(JSON.stringify(decoded)).replace(/\+/g, "-").replace(/\//g, "_").replace(
      /=+$/,
      "",
    );
    const flip = mac[0] === "A" ? "B" : "A";
    const bad = [
      `${forged}.${mac}`,
      `${payload}.${flip}${mac.slice(1)}`,
      cursor.slice(0, -1),
      payload,
      "garbage",
      "a.b.c",
      "!!!.???",
      "x".repeat(600),
    ];
    for (const c of bad) {
      const res = await app(
        call("GET", `/v1/todos?cursor=${encodeURIComponent(c)}`, { key: alice }),
      );
      assert.equal(res.status, 400, c);
      const body = await res.json();
      assert.deepEqual(body.errors, [{ location: "query.cursor", message: "invalid cursor" }]);
    }
    // a cursor is bound to the scope it was minted for
    for (const key of [bob, admin]) {
      const res = await app(call("GET", `/v1/todos?cursor=${encodeURIComponent(cursor)}`, { key }));
      assert.equal(res.status, 400);
      await res.body?.cancel();
    }
    const ok = await app(
      call("GET", `/v1/todos?limit=5&cursor=${encodeURIComponent(cursor)}`, { key: alice }),
    );
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
  },

  "a cursor from another server secret is rejected": async (env) => {
    await seed(env, "alice", 30, STAMPS);
    const key = await env.key("alice", ["user"]);
    const a = env.app({ cursorSecret: "secret-a-secret-a-secret-a-secret-a" });
    const b = env.app({ cursorSecret: "secret-b-secret-b-secret-b-secret-b" });
    const { nextCursor } = await (await a(call("GET", "/v1/todos?limit=5", { key }))).json();
    const res = await b(call("GET", `/v1/todos?cursor=${encodeURIComponent(nextCursor)}`, { key }));
    assert.equal(res.status, 400);
    await res.body?.cancel();
  },

  "a Postgres connection killed by the server is replaced transparently": async (env) => {
    if (env.backend !== "postgres") return;
    const app = env.app();
    const key = await env.key("alice", ["user"]);
    const ok = async () => {
      const res = await app(call("GET", "/v1/todos", { key }));
      await res.body?.cancel();
      return res.status;
    };
    assert.equal(await ok(), 200);
    // an admin session ends every idle connection of this database (failover, pgbouncer restart)
    const admin = postgres(TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
    try {
      const [{ db }] = await env.db.query<{ db: string }>("select current_database() as db");
      await admin.unsafe(
        "select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()",
        [db],
      );
    } finally {
      await admin.end({ timeout: 5 });
    }
    // real clock: the terminations reach the pool's sockets asynchronously; the next queries should meet dead connections (the case under test), not race ahead of them
    await new Promise((r) => setTimeout(r, 100));
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push(await ok());
    assert.deepEqual(statuses, [200, 200, 200, 200, 200]);
  },

  "users list only their own todos; admins list everyone's": async (env) => {
    await seed(env, "alice", 3, STAMPS);
    await seed(env, "bob", 2, STAMPS);
    const app = env.app();
    const count = async (key: string) =>
      (await (await app(call("GET", "/v1/todos", { key }))).json()).todos.length;
    assert.equal(await count(await env.key("alice", ["user"])), 3);
    assert.equal(await count(await env.key("bob", ["user"])), 2);
    assert.equal(await count(await env.key("root", ["admin"])), 5);
  },
});
