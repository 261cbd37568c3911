/**
 * CPU per request of todo-api next to the HTTP floor (run on demand, not a test):
 *
 *   TEST_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/postgres \
 *     deno run -A tests/bench/todo_api/cpu.ts [--seconds 5] [--rounds 3] [--profile DIR] [--env K=V ...] \
 *       [--case create|list]
 *
 * Throughput on a shared machine moves by tens of percent from run to run; the CPU a process
 * spends per request barely does. For create and first-page list, wrk (1 thread, 16 connections)
 * drives the real `main.ts serve` (one worker, access log on, as deployed) and the floor server
 * (`floor_server.ts`) in alternating rounds; each process's utime + stime (`/proc/<pid>/stat`)
 * around the run is divided by the requests wrk completed. `--profile DIR` also writes V8 CPU
 * profiles (`--cpu-prof`) of the service and the floor into `DIR/api` and `DIR/floor`.
 */
import { parseArgs } from "node:util";
import { startService } from "@svc/shared/testing";
import { wrk as runWrk } from "./wrk.ts";
import { createTestDatabase } from "../../../services/todo-api/_test_support.ts";
import { createApiKeyStore, createMigrator, loadMigrations } from "@svc/todo-api";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    seconds: { type: "string", default: "5" },
    rounds: { type: "string", default: "3" },
    profile: { type: "string" },
    env: { type: "string", multiple: true, default: [] },
    case: { type: "string" },
  },
});
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const ENTRY = new URL("../../../services/todo-api/main.ts", import.meta.url).pathname;
const FLOOR = new URL("./floor_server.ts", import.meta.url).pathname;
const TICK_US = 1e6 / 100; // USER_HZ is 100 on Linux

function cpuTicks(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]); // utime + stime (fields 14 and 15)
}

function wrk(url: string, key: string, lua: string): Promise<number> {
  return runWrk(url, { key, lua, seconds: SECONDS, connections: 16 }).then((r) => r.requests);
}

/** µs of CPU per request and requests per second, for one wrk run against `pid`. */
async function measure(pid: number, url: string, key: string, lua: string) {
  const before = cpuTicks(pid);
  const requests = await wrk(url, key, lua);
  const ticks = cpuTicks(pid) - before;
  return { us: (ticks * TICK_US) / requests, rps: requests / SECONDS };
}

/** Deno flags of a process: with `--profile`, a CPU profile into `DIR/<name>` at exit. */
function profiled(name: string): string[] {
  return values.profile ? ["-A", "--cpu-prof", `--cpu-prof-dir=${values.profile}/${name}`] : ["-A"];
}

if (!Deno.env.get("TEST_DATABASE_URL")) {
  Deno.stderr.writeSync(new TextEncoder().encode("set TEST_DATABASE_URL to a Postgres server\n"));
  Deno.exit(2);
}
const test = await createTestDatabase("postgres");
let svc;
let floor;
try {
  await createMigrator(test.db, loadMigrations()).up();
  const { key } = await createApiKeyStore(test.db).create({ subject: "bench", roles: ["user"] });
  svc = await startService({
    entry: ENTRY,
    args: ["serve", "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", "--workers", "1"],
    env: {
      TODOAPI_DATABASE_URL: test.url!,
      TODOAPI_DB_POOL_SIZE: "10",
      ...Object.fromEntries(values.env.map((kv) => kv.split(/=(.*)/s).slice(0, 2))),
    },
    permissions: profiled("api"),
    timeoutMs: 60_000,
  });
  floor = await startService({
    entry: FLOOR,
    args: [test.url!, "10"],
    permissions: profiled("floor"),
    healthPath: null,
    timeoutMs: 60_000,
  });
  const post = `wrk.method = "POST"\nwrk.body = '{"title":"benchmark todo"}'\n` +
    `wrk.headers["Content-Type"] = "application/json"\n`;
  const cases = [
    { name: "create (POST /v1/todos)", path: "/v1/todos", lua: post },
    { name: "list first page, limit 20", path: "/v1/todos?limit=20", lua: "" },
  ].filter((c) => !values.case || c.name.startsWith(values.case));
  for (const c of cases) { // warm-up: JIT, prepared statements, pools; 16 000+ rows to list
    await wrk(svc.url + c.path, key, c.lua);
    await wrk(floor.url + c.path, key, c.lua);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const rows: string[] = [];
  for (const c of cases) {
    const api = { us: [] as number[], rps: [] as number[] };
    const flo = { us: [] as number[], rps: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      const a = await measure(svc.pid, svc.url + c.path, key, c.lua);
      const f = await measure(floor.pid, floor.url + c.path, key, c.lua);
      api.us.push(a.us), api.rps.push(a.rps), flo.us.push(f.us), flo.rps.push(f.rps);
    }
    const [au, fu, ar, fr] = [median(api.us), median(flo.us), median(api.rps), median(flo.rps)];
    rows.push(
      `| ${c.name} | ${au.toFixed(0)} | ${fu.toFixed(0)} | ${(au / fu).toFixed(2)} | ${
        ar.toFixed(0)
      } | ${fr.toFixed(0)} | ${Math.round((ar / fr) * 100)}% |`,
    );
  }
  const report = `Run ${
    new Date().toISOString()
  }, median of ${ROUNDS} alternating rounds of ${SECONDS} s, wrk 1 thread, 16 connections, Deno ${Deno.version.deno}; load average at the end ${
    Deno.loadavg().map((x) => x.toFixed(2)).join(" ")
  }.

| measure | API CPU µs/request | floor CPU µs/request | API / floor | API req/s | floor req/s | API / floor req/s |
| --- | --- | --- | --- | --- | --- | --- |
${rows.join("\n")}`;
  Deno.stdout.writeSync(new TextEncoder().encode(report + "\n"));
} finally {
  await svc?.stop("SIGINT");
  await floor?.stop("SIGINT");
  await test.drop();
}
