import assert from "node:assert/strict";
import { databaseUnavailable, unavailableReason, withSafeReason } from "./db_errors.ts";
import { openPostgresDb } from "./postgres_db.ts";
import { localInfo } from "@svc/shared/http";
import { createLogger } from "@svc/shared/log";
import { createApp } from "../app.ts";
import { loadMigrations } from "../migrate/migration_files.ts";
import { createMigrator } from "../migrate/migrator.ts";

Deno.test("availability failures map to 503 with Retry-After; other errors do not", () => {
  for (const code of ["ECONNREFUSED", "CONNECTION_CLOSED", "08006", "57P01", "57P03", "53300"]) {
    const err = databaseUnavailable({ code, message: "x" });
    assert.equal(err?.status, 503, code);
    assert.equal(err?.code, "database_unavailable");
    assert.equal(new Headers(err?.headers).get("retry-after"), "2");
  }
  for (const err of [{ code: "23505" }, { code: "42P01" }, new Error("boom"), null, "s"]) {
    assert.equal(databaseUnavailable(err), undefined);
  }
});

Deno.test({
  name: "an unreachable Postgres gives a reason without host, port or user",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    const db = openPostgresDb("postgres://secretuser:pw@127.0.0.1:1/db");
    try {
      const err = await db.query("select 1").catch((e) => e);
      assert.equal(databaseUnavailable(err)?.status, 503);
      const reason = await withSafeReason(() => db.ping()).catch((e: Error) => e.message);
      assert.equal(reason, "cannot connect to the database server (ECONNREFUSED)");
      for (const leak of ["127.0.0.1", ":1", "secretuser", "pw"]) {
        assert.ok(!String(reason).includes(leak), leak);
      }
    } finally {
      await db.close();
    }
  },
});

Deno.test("unknown failures in readiness say only that the query failed", async () => {
  const reason = await withSafeReason(() => Promise.reject(new Error("at 10.1.2.3:5432")))
    .catch((e: Error) => e.message);
  assert.equal(reason, "the database query failed");
  assert.equal(unavailableReason({ code: "57014" }), "the query timed out");
});

Deno.test({
  name: "with the database down, /v1 answers 503 + Retry-After and /readyz names checks only",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = openPostgresDb("postgres://u:pw@127.0.0.1:1/db");
    try {
      const app = createApp({
        db,
        migrator: createMigrator(db, loadMigrations()),
        logger: createLogger({ write: () => {} }),
        authzEnabled: false,
      });
      const post = await app(
        new Request("http://x/v1/todos", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: '{"title":"a"}',
        }),
        localInfo(),
      );
      assert.equal(post.status, 503);
      assert.equal(post.headers.get("retry-after"), "2");
      assert.equal(
        (await post.json()).detail,
        "cannot connect to the database server (ECONNREFUSED); retry later",
      );
      const list = await app(new Request("http://x/v1/todos"), localInfo());
      assert.equal(list.status, 503);
      await list.body?.cancel();
      const ready = await app(new Request("http://x/readyz"), localInfo());
      assert.equal(ready.status, 503);
      const text = await ready.text();
      assert.match(text, /"datastore":\{"status":"fail"/);
      assert.ok(!text.includes("127.0.0.1") && !text.includes(":1"), text);
    } finally {
      await db.close();
    }
  },
});
