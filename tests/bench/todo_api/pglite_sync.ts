/**
 * The cost of durable embedded PGlite (run on demand, not a test):
 *
 *   deno run -A tests/bench/todo_api/pglite_sync.ts [--inserts 300] [--rounds 3]
 *
 * Creates todos one after another (each its own commit, as `POST /v1/todos` does) on a PGlite
 * data directory opened with `--pglite-sync=true` (fsync on, a real fsync(2) per commit) and with
 * `--pglite-sync=false`, alternating rounds in one run; prints inserts/s and the ratio.
 */
import { parseArgs } from "node:util";
import { createMigrator, loadMigrations, openPgliteDb } from "@svc/todo-api";
import { createTodoStore } from "../../../services/todo-api/todos/todo_store.ts";
import { median } from "./measure.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    inserts: { type: "string", default: "300" },
    rounds: { type: "string", default: "3" },
  },
});
const INSERTS = Number(values.inserts);
const ROUNDS = Number(values.rounds);

async function insertsPerSecond(durable: boolean): Promise<number> {
  const dir = await Deno.makeTempDir({ prefix: "pglite_sync_bench_" });
  try {
    const db = await openPgliteDb({ dataDir: `${dir}/db`, durable });
    try {
      await createMigrator(db, loadMigrations()).up();
      const todos = createTodoStore(db);
      for (let i = 0; i < 20; i++) await todos.create("warm", `w${i}`);
      const t0 = performance.now();
      for (let i = 0; i < INSERTS; i++) await todos.create("bench", `todo ${i}`);
      return INSERTS / ((performance.now() - t0) / 1000);
    } finally {
      await db.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const on: number[] = [];
const off: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  on.push(await insertsPerSecond(true));
  off.push(await insertsPerSecond(false));
}
const load = (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
const lines = [
  `Run ${
    new Date().toISOString()
  }, ${ROUNDS} alternating rounds of ${INSERTS} sequential creates, ` +
  `load average ${load}.`,
  "",
  "| PGlite setting | creates/s (median) | rounds | vs not durable |",
  "| --- | --- | --- | --- |",
  `| --pglite-sync=true (durable, default) | ${median(on).toFixed(0)} | ${
    on.map((x) => x.toFixed(0)).join(", ")
  } | ${(100 * median(on) / median(off)).toFixed(0)}% |`,
  `| --pglite-sync=false | ${median(off).toFixed(0)} | ${
    off.map((x) => x.toFixed(0)).join(", ")
  } | 100% |`,
];
await Deno.stdout.write(new TextEncoder().encode(lines.join("\n") + "\n"));
