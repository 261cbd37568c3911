/**
 * Where the throughput between the HTTP floor and todo-api goes, layer by layer (run on demand,
 * not a test):
 *
 *   TEST_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/postgres \
 *     deno run -A tests/bench/todo_api/layers.ts [--case create|list] [--rounds 8] [--seconds 3] \
 *       [--warm 3] [--same-process] [--before DIR]
 *
 * On one Postgres database (for `--case list`, 25 todos of the benchmark's owner, so the first
 * page is a full 20), wrk (1 thread, 16 connections) drives in turn, in each round and in
 * an order that reverses from round to round: the floor (`floor_server.ts`, a bare `Deno.serve`);
 * the floor's handler behind the kit's server, then also its route table, then also its default
 * stack (`floor_kit.ts`); and todo-api itself in its shipped form (`main.ts serve --workers 1`).
 * For each it reports the median of the rounds' throughput ratios against the floor (each ratio
 * from the same round), and the process's CPU per request (`/proc/<pid>/stat` around each run;
 * first quartile and median, since a round that the shared machine slows only ever adds).
 *
 * Each round starts every side afresh (then warms it up for `--warm` seconds, unmeasured, and
 * stops it after its run): one process of a side differs from the next by a few µs of CPU per
 * request (the JIT's choices, the heap's layout; measured on 2026-12-02: one process of the same
 * code read 4 µs under three others on a 21 µs request), and with one process per side for all
 * rounds that luck was in every round's ratio. Now it is one sample per round, which the median
 * evens out. `--same-process` keeps one process per side for all rounds, as before.
 *
 * `--before DIR` also runs the kit stack and todo-api of another checkout (e.g. `git archive` of
 * the commit before a change, unpacked with a hard-linked copy of `node_modules`) in the same
 * rounds, so a change is measured against what it replaced under the same load.
 */
import { parseArgs } from "node:util";
import { type ServiceProcess, startService } from "@svc/testing";
import { startApi } from "./api_process.ts";
import { wrk } from "./wrk.ts";
import { createTestDatabase } from "../../../services/todo-api/_test_support.ts";
import { createApiKeyStore, createMigrator, loadMigrations } from "@svc/todo-api";
import { INSERT } from "./statements.ts";
import { cpuTicks, median, quartile1, TICK_US } from "./measure.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    case: { type: "string", default: "create" },
    rounds: { type: "string", default: "8" },
    seconds: { type: "string", default: "3" },
    before: { type: "string" },
    warm: { type: "string", default: "3" },
    "same-process": { type: "boolean", default: false },
  },
});
const WARM = Number(values.warm);
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.seconds);
const FLOOR = new URL("./floor_server.ts", import.meta.url).pathname;
const FLOOR_KIT = new URL("./floor_kit.ts", import.meta.url).pathname;

if (!Deno.env.get("TEST_DATABASE_URL")) {
  Deno.stderr.writeSync(new TextEncoder().encode("set TEST_DATABASE_URL to a Postgres server\n"));
  Deno.exit(2);
}

const test = await createTestDatabase("postgres");
/** A side: how to start its process, and the one running (between start and stop). */
interface Side {
  name: string;
  start: () => Promise<ServiceProcess>;
  running?: ServiceProcess;
}
const sides: Side[] = [];
try {
  await createMigrator(test.db, loadMigrations()).up();
  const { key } = await createApiKeyStore(test.db).create({ subject: "bench", roles: ["user"] });
  // The first page is a full one: 25 todos of the key's subject (the floor's owner too).
  if (values.case === "list") {
    for (let i = 0; i < 25; i++) await test.db.query(INSERT, ["bench", `benchmark todo ${i}`]);
  }
  const quiet = { healthPath: null, timeoutMs: 60_000, outputLimit: 64 * 1024 };
  const add = (name: string, start: () => Promise<ServiceProcess>) => sides.push({ name, start });
  add(
    "floor: Deno.serve + postgres.js",
    () => startService({ entry: FLOOR, args: [test.url!, "10"], ...quiet }),
  );
  for (const layers of ["server", "router", "stack"]) {
    add(
      `kit ${layers}${layers === "stack" ? " (log, metrics, request id, timeout)" : ""}`,
      () => startService({ entry: FLOOR_KIT, args: [test.url!, "10", layers], ...quiet }),
    );
  }
  const before = values.before;
  if (before) {
    add("kit stack, before", () =>
      startService({
        entry: `${before}/tests/bench/todo_api/floor_kit.ts`,
        args: [test.url!, "10", "stack"],
        cwd: before,
        ...quiet,
      }));
  }
  // one worker, as the floor has one isolate (the default on Postgres is one per core)
  add("todo-api (shipped form, 1 worker)", () => startApi(test.url!, { workers: 1, pool: 10 }));
  if (before) {
    add("todo-api, before", () => startApi(test.url!, { workers: 1, pool: 10, root: before }));
  }
  const lua = values.case === "create"
    ? `wrk.method = "POST"\nwrk.body = '{"title":"benchmark todo"}'\n` +
      `wrk.headers["Content-Type"] = "application/json"\n`
    : "";
  const path = values.case === "create" ? "/v1/todos" : "/v1/todos?limit=20";
  const rps = sides.map(() => [] as number[]);
  const us = sides.map(() => [] as number[]);
  const run = (url: string, seconds: number) =>
    wrk(url + path, { key, lua, seconds, connections: 16 });
  const fresh = !values["same-process"];
  // With one process per side, round -1 warms every side up; fresh sides warm up as they start.
  for (let round = fresh ? 0 : -1; round < ROUNDS; round++) {
    const order = sides.map((_, i) => i);
    if (round % 2) order.reverse();
    for (const i of order) {
      const side = sides[i];
      if (!side.running) {
        side.running = await side.start();
        if (WARM > 0) await run(side.running.url, WARM);
      }
      const { pid, url } = side.running;
      const before = cpuTicks(pid);
      const r = await run(url, SECONDS);
      const ticks = cpuTicks(pid) - before;
      if (fresh) {
        await side.running.stop("SIGINT");
        side.running = undefined;
      }
      if (round < 0) continue;
      us[i].push((ticks * TICK_US) / r.requests);
      rps[i].push(r.requests / SECONDS);
    }
  }
  const rows = sides.map((side, i) => {
    const ratios = rps[i].map((x, round) => x / rps[0][round]);
    return `| ${side.name} | ${median(rps[i]).toFixed(0)} | ${
      Math.round(median(ratios) * 100)
    }% | ${ratios.map((x) => Math.round(x * 100)).join(" ")} | ${quartile1(us[i]).toFixed(0)} / ${
      median(us[i]).toFixed(0)
    } |`;
  });
  Deno.stdout.writeSync(new TextEncoder().encode(
    `${values.case}, run ${
      new Date().toISOString()
    }: ${ROUNDS} rounds of ${SECONDS} s, order reversed each round, ${
      fresh ? `every side started afresh each round (${WARM} s warm-up)` : "one process per side"
    }; load average at the end ${Deno.loadavg().map((x) => x.toFixed(2)).join(" ")}.

| server | req/s (median) | vs floor (median of the rounds' ratios) | per round | CPU µs/request (q1 / median) |
| --- | --- | --- | --- | --- |
${rows.join("\n")}
`,
  ));
} finally {
  for (const side of sides) await side.running?.stop("SIGINT");
  await test.drop();
}
