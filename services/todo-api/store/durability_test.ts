import assert from "node:assert/strict";
import { createTestDatabase, withoutPostgres } from "../_test_support.ts";
import { describeDurability } from "./durability.ts";

Deno.test({
  name: "describeDurability() says PGlite is durable only with --pglite-sync",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const test = await createTestDatabase("pglite");
    try {
      const on = await describeDurability(test.db, true);
      assert.equal(on.durable, true);
      const off = await describeDurability(test.db, false);
      assert.equal(off.durable, false);
      assert.match(off.detail, /power loss.*Postgres server/);
    } finally {
      await test.drop();
    }
  },
});

Deno.test({
  name: "describeDurability() reads fsync and synchronous_commit from a Postgres server",
  ignore: withoutPostgres(import.meta.url),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const test = await createTestDatabase("postgres");
    try {
      const [row] = await test.db.query<{ fsync: string }>("show fsync");
      const report = await describeDurability(test.db, true);
      assert.match(report.detail, new RegExp(`fsync=${row.fsync}, synchronous_commit=`));
      assert.equal(report.durable, row.fsync === "on" && !/=off$/.test(report.detail));
    } finally {
      await test.drop();
    }
  },
});
