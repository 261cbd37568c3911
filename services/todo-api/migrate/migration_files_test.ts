import assert from "node:assert/strict";
import { MIGRATION_FILES } from "../migrations/mod.ts";
import { loadMigrations, MIGRATION_FILE } from "./migration_files.ts";

Deno.test("every .sql file in migrations/ is listed in migrations/mod.ts, with the same text", async () => {
  const dir = new URL("../migrations/", import.meta.url);
  const onDisk: Record<string, string> = {};
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.endsWith(".sql")) {
      assert.match(entry.name, MIGRATION_FILE);
      onDisk[entry.name] = await Deno.readTextFile(new URL(entry.name, dir));
    }
  }
  assert.deepEqual({ ...MIGRATION_FILES }, onDisk);
});

Deno.test("migrations pair up and sort by version", () => {
  const ms = loadMigrations();
  assert.deepEqual(ms.map((m) => m.version), [1, 2, 3, 4]);
  assert.ok(ms.every((m) => /^[0-9a-f]{64}$/.test(m.checksum)));
});

Deno.test("a migration without its down file, or with two names, is refused", () => {
  assert.throws(() => loadMigrations({ "000001_a.up.sql": "" }), /lacks its up or down/);
  assert.throws(
    () => loadMigrations({ "000001_a.up.sql": "", "000001_b.down.sql": "" }),
    /two names/,
  );
});
