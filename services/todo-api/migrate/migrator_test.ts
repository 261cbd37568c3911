import assert from "node:assert/strict";
import { createMigrator, loadMigrations, MigrationLockedError, openPostgresDb } from "../mod.ts";
import { migrateCommand } from "../commands/migrate.ts";
import { keysCommand } from "../commands/keys.ts";
import { resolveSettings } from "../settings.ts";
import { createTestDatabase, withoutPostgres } from "../_test_support.ts";

async function tables(db: { query: (s: string) => Promise<Record<string, unknown>[]> }) {
  const rows = await db.query(
    "select tablename::text as t from pg_tables where schemaname = 'public' order by 1",
  );
  return rows.map((r) => r.t);
}

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
}

for (const backend of ["pglite", "postgres"] as const) {
  Deno.test({
    name: `migrations up/down/status round trip [${backend}]`,
    ignore: backend === "postgres" && withoutPostgres(import.meta.url, "postgres backend"),
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      const test = await createTestDatabase(backend);
      try {
        const files = loadMigrations();
        const migrator = createMigrator(test.db, files);
        await t.step("a fresh database has every migration pending", async () => {
          assert.deepEqual(
            (await migrator.status()).map((s) => s.state),
            files.map(() => "pending"),
          );
          assert.equal((await migrator.pending()).length, files.length);
          assert.deepEqual(await tables(test.db), []); // status is read-only
        });
        await t.step("up applies all, then reports no change", async () => {
          assert.deepEqual((await migrator.up()).map((m) => m.version), [1, 2, 3, 4]);
          assert.deepEqual(await migrator.up(), []);
          assert.deepEqual(await tables(test.db), [
            "api_keys",
            "schema_migrations",
            "server_secrets",
            "todos",
          ]);
          assert.ok((await migrator.status()).every((s) => s.state === "applied" && s.appliedAt));
        });
        await t.step("down reverts exactly one by default, up re-applies it", async () => {
          assert.deepEqual((await migrator.down()).map((m) => m.version), [4]);
          assert.deepEqual((await migrator.pending()).map((m) => m.version), [4]);
          assert.deepEqual((await migrator.up()).map((m) => m.version), [4]);
        });
        await t.step("an edited file shows as modified", async () => {
          const edited = files.map((m) => m.version === 2 ? { ...m, checksum: "x" } : m);
          const states = (await createMigrator(test.db, edited).status()).map((s) => s.state);
          assert.deepEqual(states, ["applied", "modified", "applied", "applied"]);
        });
        await t.step("a failing migration leaves nothing behind", async () => {
          const broken = [...files, {
            version: 5,
            name: "broken",
            up: "create table half (x int); select 1/0;",
            down: "drop table half;",
            checksum: "c",
          }];
          await assert.rejects(createMigrator(test.db, broken).up());
          assert.equal((await tables(test.db)).includes("half"), false);
          assert.deepEqual(
            (await createMigrator(test.db, broken).pending()).map((m) => m.version),
            [5],
          );
        });
        await t.step(
          "the CLI prints dbmate-style status and --exit-code 3 when pending",
          async () => {
            const c = capture();
            const { settings } = resolveSettings(["--exit-code"], () => undefined);
            assert.equal(await migrateCommand(test.db, ["down"], { settings, io: c.io }), 0);
            assert.deepEqual(c.out, ["reverted 000004_add_api_key_expiry"]);
            const s = capture();
            assert.equal(await migrateCommand(test.db, ["status"], { settings, io: s.io }), 3);
            assert.match(s.out[0], /^\[X\] 000001_create_todos {2}\d{4}-/);
            assert.equal(s.out[3], "[ ] 000004_add_api_key_expiry");
            assert.deepEqual(s.out.slice(-2), ["Applied: 3", "Pending: 1"]);
            const u = capture();
            assert.equal(await migrateCommand(test.db, ["up"], { settings, io: u.io }), 0);
            assert.deepEqual(u.out, ["applied 000004_add_api_key_expiry"]);
            const bad = capture();
            assert.equal(
              await migrateCommand(test.db, ["down", "zero"], { settings, io: bad.io }),
              2,
            );
          },
        );
        await t.step("keys create prints the key once; list and revoke work", async () => {
          const { settings } = resolveSettings(
            ["--subject", "alice", "--role", "user"],
            () => undefined,
          );
          const c = capture();
          assert.equal(await keysCommand(test.db, ["create"], { settings, io: c.io }), 0);
          assert.equal(c.out.length, 1);
          assert.match(c.out[0], /^todo_[A-Za-z0-9_-]{43}$/);
          const l = capture();
          assert.equal(await keysCommand(test.db, ["list"], { settings, io: l.io }), 0);
          assert.equal(l.out.length, 2);
          assert.equal(l.out.join("\n").includes(c.out[0]), false);
          const id = l.out[1].split("\t")[0];
          const r = capture();
          assert.equal(await keysCommand(test.db, ["revoke", id], { settings, io: r.io }), 0);
          assert.equal(await keysCommand(test.db, ["revoke", id], { settings, io: r.io }), 1);
          const { settings: auditor } = resolveSettings(
            ["--subject", "carol", "--role", "auditor"],
            () => undefined,
          );
          const w = capture();
          assert.equal(await keysCommand(test.db, ["create"], { settings: auditor, io: w.io }), 0);
          assert.match(w.err.join("\n"), /warning: role\(s\) auditor grant no action/);
          const { settings: noRole } = resolveSettings(["--subject", "x"], () => undefined);
          assert.equal(await keysCommand(test.db, ["create"], { settings: noRole, io: r.io }), 2);
          const { settings: badRole } = resolveSettings(
            ["--subject", "x", "--role", "Bad Role"],
            () => undefined,
          );
          assert.equal(await keysCommand(test.db, ["create"], { settings: badRole, io: r.io }), 2);
        });
        await t.step("down --all removes every table it created", async () => {
          assert.deepEqual((await migrator.down(Infinity)).map((m) => m.version), [4, 3, 2, 1]);
          assert.deepEqual(await tables(test.db), ["schema_migrations"]);
          const c = capture();
          const { settings } = resolveSettings([], () => undefined);
          assert.equal(await keysCommand(test.db, ["list"], { settings, io: c.io }), 1);
          assert.match(c.err[0], /run `migrate up` first/);
        });
      } finally {
        await test.drop();
      }
    },
  });
}

Deno.test({
  name: "concurrent migrators serialize on the advisory lock [postgres]",
  ignore: withoutPostgres(import.meta.url),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const test = await createTestDatabase("postgres");
    const other = openPostgresDb(test.url!);
    try {
      const files = loadMigrations();
      const results = await Promise.all([
        createMigrator(test.db, files).up(),
        createMigrator(other, files).up(),
      ]);
      assert.deepEqual(results.map((r) => r.length).sort(), [0, files.length]);
      // while a session holds the lock, another migrator gives up after its timeout
      await other.session(async (q) => {
        await q.query("select pg_advisory_lock(7309425061180001)");
        await assert.rejects(
          createMigrator(test.db, files, { lockTimeoutMs: 300 }).down(),
          MigrationLockedError,
        );
        await q.query("select pg_advisory_unlock(7309425061180001)");
      });
      assert.equal((await createMigrator(test.db, files).pending()).length, 0);
    } finally {
      await other.close();
      await test.drop();
    }
  },
});
