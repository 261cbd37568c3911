import assert from "node:assert/strict";
import { PGlite } from "@electric-sql/pglite";
import { DURABLE_START_PARAMS, DurableNodeFS } from "./durable_fs.ts";
import { openPgliteDb } from "./pglite_db.ts";
import { emptyPgliteTarball } from "../_test_support.ts";

// Each database starts from the initdb'd tarball the in-process suites share (initdb on a durable
// directory costs seconds of fsyncs; what is tested here is how commits reach the disk).

Deno.test({
  name: "durable PGlite runs with fsync on and calls the host's fsync for every commit",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      const fs = new DurableNodeFS(`${dir}/db`);
      const pg = await PGlite.create({
        fs,
        startParams: [...DURABLE_START_PARAMS],
        loadDataDir: await emptyPgliteTarball(),
      });
      assert.equal((await pg.query<{ fsync: string }>("show fsync")).rows[0].fsync, "on");
      const method = await pg.query<{ wal_sync_method: string }>("show wal_sync_method");
      assert.equal(method.rows[0].wal_sync_method, "fsync");
      await pg.exec("create table t (n int)");
      const before = fs.fsyncs;
      for (let i = 0; i < 5; i++) await pg.query("insert into t values ($1)", [i]);
      assert.ok(fs.fsyncs - before >= 5, `5 commits made ${fs.fsyncs - before} fsync calls`);
      await pg.close();
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "openPgliteDb is durable by default and can opt out",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      const loadDataDir = await emptyPgliteTarball();
      const durable = await openPgliteDb({ dataDir: `${dir}/a`, loadDataDir });
      assert.deepEqual(await durable.query("show fsync"), [{ fsync: "on" }]);
      await durable.close();
      const fast = await openPgliteDb({ dataDir: `${dir}/b`, durable: false, loadDataDir });
      assert.deepEqual(await fast.query("show fsync"), [{ fsync: "off" }]);
      await fast.close();
      // Reopening a durable directory keeps its data.
      const again = await openPgliteDb({ dataDir: `${dir}/a` });
      assert.deepEqual(await again.query("select 1 as one"), [{ one: 1 }]);
      await again.close();
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
