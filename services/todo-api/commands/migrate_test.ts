import assert from "node:assert/strict";
import { migrateCommand } from "./migrate.ts";
import { resolveSettings } from "../settings.ts";
import { createTestDatabase } from "../_test_support.ts";
import { loadMigrations } from "../migrate/migration_files.ts";
import { createMigrator, MigrationFailedError } from "../migrate/migrator.ts";

const FILES = {
  "000001_one.up.sql": "create table one (n int);",
  "000001_one.down.sql": "drop table one;",
  "000002_two.up.sql": "create table two (n int);",
  "000002_two.down.sql": "drop table two;",
  "000003_broken.up.sql": "create table three (n int); select no_such_function();",
  "000003_broken.down.sql": "drop table three;",
};

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
}

Deno.test({
  name: "a failed migrate up names the failed migration and lists what it applied before",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const test = await createTestDatabase("pglite");
    const db = test.db;
    try {
      await t.step("the migrator throws MigrationFailedError with the applied ones", async () => {
        const migrator = createMigrator(db, loadMigrations(FILES));
        const heard: number[] = [];
        const err = await migrator.up({ onApplied: (m) => heard.push(m.version) })
          .catch((e) => e);
        assert.ok(err instanceof MigrationFailedError);
        assert.equal(err.migration.version, 3);
        assert.deepEqual(err.applied.map((m) => m.version), [1, 2]);
        assert.deepEqual(heard, [1, 2]);
        assert.deepEqual((await migrator.pending()).map((m) => m.version), [3]);
        await migrator.down(Infinity);
      });
      await t.step("the CLI prints each applied line, then the failure", async () => {
        const { settings } = resolveSettings(["migrate", "up"], () => undefined);
        const out = capture();
        const code = await migrateCommand(db, ["up"], { settings, io: out.io, files: FILES });
        assert.equal(code, 1);
        assert.deepEqual(out.out, ["applied 000001_one", "applied 000002_two"]);
        assert.equal(out.err.length, 1);
        assert.match(
          out.err[0],
          /^migrate up: 000003_broken failed and was rolled back \(2 applied before it\): /,
        );
      });
      await t.step(
        "status shows a recorded migration unknown to this build by its name",
        async () => {
          const { settings } = resolveSettings(["migrate", "status"], () => undefined);
          const fewer = { ...FILES } as Record<string, string>;
          delete fewer["000002_two.up.sql"];
          delete fewer["000002_two.down.sql"];
          const out = capture();
          await migrateCommand(db, ["status"], { settings, io: out.io, files: fewer });
          assert.match(out.out.find((l) => l.startsWith("[?]"))!, /^\[\?\] 000002_two /);
        },
      );
    } finally {
      await test.drop();
    }
  },
});
