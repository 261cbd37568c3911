/**
 * Where the throughput between the HTTP floor and todo-api goes, layer by layer (run on demand,
 * not a test):
 *
 *   TEST_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/postgres \
 *     deno run -A tests/bench/todo_api/layers.ts [--case create|list] [--rounds 8] [--seconds 3] \
 *       [--before DIR]
 *
 * On one Postgres database, wrk (1 thread, 16 connections) drives in turn, in each round and in
 * an order that reverses from round to round: the floor (`floor_server.ts`, a bare `Deno.serve`);
 * the floor's handler behind the kit's server, then also its route table, then also its default
 * stack (`floor_kit.ts`); and todo-api itself in its shipped form (`main.ts serve --workers 1`).
 * For each it reports the median of the rounds' throughput ratios against the floor (each ratio
 * from the same round), and the process's CPU per request (`/proc/<pid>/stat` around each run;
 * first quartile and median, since a round that the shared machine slows only ever adds).
 *
 * `--before DIR` also runs the kit stack and todo-api of another checkout (e.g. `git archive` of
 * the commit before a change, unpacked with a hard-linked copy of `node_modules`) in the same
 * rounds, so a change is measured against what it replaced under the same load.
 */
import { parseArgs } from "node:util";
import { startService } from "@svc/testing";
import { startApi } from "./api_process.ts";
import { wrk } from "./wrk.ts";
import { createTestDatabase } from "../../../services/todo-api/_test_support.ts";
import { createApiKeyStore, createMigrator, loadMigrations } from "@svc/todo-api";
import { cpuTicks, median, quartile1, TICK_US } from "./measure.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    case: { type: "string", default: "create" },
    rounds: { type: "string", default: "8" },
    seconds: { type: "string", default: "3" },
    before: { type: "string" },
  },
});
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.seconds);
const FLOOR = new URL("./floor_server.ts", import.meta.url).pathname;
const FLOOR_KIT = new URL("./floor_kit.ts", import.meta.url).pathname;

if (!Deno.env.get("TEST_DATABASE_URL")) {
  Deno.stderr.writeSync(new TextEncoder().encode("set TEST_DATABASE_URL to a Postgres server\n"));
  Deno.exit(2);
}

const test = await createTestDatabase("postgres");
const sides: { name: string; pid: number; url: string; stop: (s?: Deno.Signal) => unknown }[] = [];
try {
  await createMigrator(test.db, loadMigrations()).up();
  const { key } = await createApiKeyStore(test.db).create({ subject: "bench", roles: ["user"] });
  const quiet = { healthPath: null, timeoutMs: 60_000, outputLimit: 64 * 1024 };
  const add = (name: string, svc: Awaited<ReturnType<typeof startService>>) => {
    sides.push({ name, pid: svc.pid, url: svc.url, stop: svc.stop });
  };
  add(
    "floor: Deno.serve + postgres.js",
    await startService({ entry: FLOOR, args: [test.url!, "10"], ...quiet }),
  );
  for (const layers of ["server", "router", "stack"]) {
    add(
      `kit ${layers}${layers === "stack" ? " (log, metrics, request id, timeout)" : ""}`,
      await startService({ entry: FLOOR_KIT, args: [test.url!, "10", layers], ...quiet }),
    );
  }
  const before = values.before;
  if (before) {
    add(
      "kit stack, before",
      await startService({
        entry: `${before}/tests/bench/todo_api/floor_kit.ts`,
        args: [test.url!, "10", "stack"],
        cwd: before,
        ...quiet,
      }),
    );
  }
  // one worker, as the floor has one isolate (the default on Postgres is one per core)
  add("todo-api (shipped form, 1 worker)", await startApi(test.url!, { workers: 1, pool: 10 }));
  if (before) {
    add("todo-api, before", await startApi(test.url!, { workers: 1, pool: 10, root: before }));
  }
  const lua = values.case === "create"
    ? `wrk.method = "POST"\nwrk.body = '{"title":"benchmark todo"}'\n` +
      `wrk.headers["Content-Type"] = "application/json"\n`
    : "";
  const path = values.case === "create" ? "/v1/todos" : "/v1/todos?limit=20";
  const rps = sides.map(() => [] as number[]);
  const us = sides.map(() => [] as number[]);
  for (let round = -1; round < ROUNDS; round++) { // round -1 warms every side up
    const order = sides.map((_, i) => i);
    if (round % 2) order.reverse();
    for (const i of order) {
      const before = cpuTicks(sides[i].pid);
      const r = await wrk(sides[i].url + path, { key, lua, seconds: SECONDS, connections: 16 });
      if (round < 0) continue;
      us[i].push(((cpuTicks(sides[i].pid) - before) * TICK_US) / r.requests);
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
    }: ${ROUNDS} rounds of ${SECONDS} s, order reversed each round; load average at the end ${
      Deno.loadavg().map((x) => x.toFixed(2)).join(" ")
    }.

| server | req/s (median) | vs floor (median of the rounds' ratios) | per round | CPU µs/request (q1 / median) |
| --- | --- | --- | --- | --- |
${rows.join("\n")}
`,
  ));
} finally {
  for (const side of sides) await side.stop("SIGINT");
  await test.drop();
}
