/**
 * The datastore `serve` opens behind its listener: queries wait for the open (never fail while
 * it runs), readiness does not wait, a failed open turns waiting queries into 503s, and `close`
 * closes what the open gave even when called before it settled. On real PGlite (in memory).
 */
import assert from "node:assert/strict";
import { localInfo } from "@svc/shared/http";
import { createLogger } from "@svc/shared/log";
import { createApp } from "../app.ts";
import { createTestDatabase } from "../_test_support.ts";
import { loadMigrations } from "../migrate/migration_files.ts";
import { createMigrator } from "../migrate/migrator.ts";
import type { Db } from "./db.ts";
import { databaseUnavailable, withSafeReason } from "./db_errors.ts";
import { DatastoreFailedError, DatastoreOpeningError, notOpen, openingDb } from "./opening_db.ts";

/** Whether `p` has settled after every pending job has run (no clock involved). */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  p.then(() => done = true, () => done = true);
  for (let i = 0; i < 20; i++) await Promise.resolve();
  return done;
}

Deno.test("queries wait for the open, then run; readiness is told at once", async () => {
  const test = await createTestDatabase("pglite");
  const open = Promise.withResolvers<Db>();
  const db = openingDb("pglite", open.promise);
  try {
    assert.equal(db.kind, "pglite");
    assert.ok(notOpen(db) instanceof DatastoreOpeningError);
    const ping = await db.ping().catch((e) => e);
    assert.ok(ping instanceof DatastoreOpeningError);
    assert.equal(
      await withSafeReason(() => db.ping()).catch((e: Error) => e.message),
      "the datastore is still opening",
    );
    const query = db.query<{ n: number }>("select $1::int as n", [7]);
    const exec = db.exec("create table t (x int)");
    const session = db.session((s) => s.query<{ one: number }>("select 1 as one"));
    assert.equal(await settled(query), false, "the query waits for the open");
    open.resolve(test.db);
    assert.deepEqual(await query, [{ n: 7 }]);
    await exec;
    assert.deepEqual(await session, [{ one: 1 }]);
    assert.equal(notOpen(db), undefined);
    await db.ping();
    assert.deepEqual(await db.query("select count(*)::int as c from t"), [{ c: 0 }]);
  } finally {
    await db.close();
  }
  // close() closed the PGlite the open gave
  assert.ok(await test.db.query("select 1").then(() => false, () => true));
});

Deno.test("a failed open fails the waiting queries with a 503 and closes nothing", async () => {
  const open = Promise.withResolvers<Db>();
  const db = openingDb("postgres", open.promise);
  const query = db.query("select 1").catch((e) => e);
  const listen = db.listen!("c", () => {}).catch((e) => e);
  const cause = new Error("Cannot open datastore: boom");
  open.reject(cause);
  const err = await query;
  assert.ok(err instanceof DatastoreFailedError);
  assert.equal(err.cause, cause);
  assert.ok(await listen instanceof DatastoreFailedError);
  const problem = databaseUnavailable(err);
  assert.equal(problem?.status, 503);
  assert.equal(problem?.message, "the datastore could not be opened; retry later");
  assert.ok(notOpen(db) instanceof DatastoreFailedError);
  assert.equal(
    await withSafeReason(() => db.ping()).catch((e: Error) => e.message),
    "the datastore could not be opened",
  );
  await assert.rejects(db.opened, (e) => e === cause);
  await db.close(); // nothing to close: resolves
});

Deno.test("close before the open settles waits for it and closes what it gave", async () => {
  const test = await createTestDatabase("pglite");
  const open = Promise.withResolvers<Db>();
  const db = openingDb("pglite", open.promise);
  const closing = db.close();
  assert.equal(await settled(closing), false, "close waits for the open");
  open.resolve(test.db);
  await closing;
  assert.ok(await test.db.query("select 1").then(() => false, () => true), "closed");
});

Deno.test("PGlite has no listen; any other datastore is never reported as opening", async () => {
  const db = openingDb("pglite", new Promise<Db>(() => {}));
  assert.equal(db.listen, undefined);
  const test = await createTestDatabase("pglite");
  try {
    assert.equal(notOpen(test.db), undefined);
  } finally {
    await test.drop();
  }
});

Deno.test("the app while the datastore opens: /healthz 200, /readyz 503 at once, /v1 waits", async () => {
  const test = await createTestDatabase("pglite");
  await createMigrator(test.db, loadMigrations()).up();
  const open = Promise.withResolvers<Db>();
  const db = openingDb("pglite", open.promise);
  const app = createApp({
    db,
    migrator: createMigrator(db, loadMigrations()),
    logger: createLogger({ write: () => {} }),
    authzEnabled: false,
  });
  try {
    const health = await app(new Request("http://x/healthz"), localInfo());
    assert.equal(health.status, 200);
    await health.body?.cancel();
    const ready = await app(new Request("http://x/readyz"), localInfo());
    assert.equal(ready.status, 503);
    assert.deepEqual(await ready.json(), {
      status: "not_ready",
      checks: {
        datastore: { status: "fail", error: "the datastore is still opening" },
        migrations: { status: "fail", error: "the datastore is still opening" },
      },
    });
    const created = Promise.resolve(app(
      new Request("http://x/v1/todos", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"title":"early"}',
      }),
      localInfo(),
    ));
    assert.equal(await settled(created), false, "the create waits for the datastore");
    open.resolve(test.db);
    const res = await created;
    assert.equal(res.status, 201);
    assert.equal((await res.json()).title, "early");
    const after = await app(new Request("http://x/readyz"), localInfo());
    assert.equal(after.status, 200);
    await after.body?.cancel();
  } finally {
    await db.close();
  }
});
