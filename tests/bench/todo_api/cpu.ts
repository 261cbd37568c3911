/**
 * CPU per request of todo-api next to the HTTP floor (run on demand, not a test):
 *
 *   TEST_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/postgres \
 *     deno run -A tests/bench/todo_api/cpu.ts [--seconds 5] [--rounds 3] [--profile DIR] [--env K=V ...] \
 *       [--case create|list]
 *
 * Throughput on a shared machine moves by tens of percent from run to run; the CPU a process
 * spends per request barely does. For create and first-page list, wrk (1 thread, 16 connections)
 * drives the real `main.ts serve` (one worker, access log on, with the flags of
 * `deploy/services.ts`, as deployed) and the floor server
 * (`floor_server.ts`) in alternating rounds; each process's utime + stime (`/proc/<pid>/stat`)
 * around the run is divided by the requests wrk completed. `--profile DIR` also writes V8 CPU
 * profiles (`--cpu-prof`) of the service and the floor into `DIR/api` and `DIR/floor`.
 */
import { parseArgs } from "node:util";
import { startService } from "@svc/testing";
import { startApi } from "./api_process.ts";
import { wrk as runWrk } from "./wrk.ts";
import { createTestDatabase } from "../../../services/todo-api/_test_support.ts";
import { createApiKeyStore, createMigrator, loadMigrations } from "@svc/todo-api";
import { cpuTicks, median, TICK_US } from "./measure.ts";

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
const FLOOR = new URL("./floor_server.ts", import.meta.url).pathname;

function wrk(url: string, key: string, lua: string): Promise<number> {
  return runWrk(url, { key, lua, seconds: SECONDS, connections: 16 }).then((r) => r.requests);
}

/**
 * The benchmark database's side: its backends' CPU ticks (all server processes connected to it)
 * and its committed transactions, read from Postgres's statistics views.
 */
async function databaseSide(): Promise<{ ticks: number; xacts: number }> {
  const [row] = await test.db.query<{ pids: string; xacts: string }>(
    `select string_agg(pid::text, ' ') as pids,
       (select xact_commit::text from pg_stat_database where datname = current_database()) as xacts
     from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
  );
  await test.db.exec("select pg_stat_clear_snapshot()");
  let ticks = 0;
  for (const pid of (row.pids ?? "").split(" ").filter(Boolean)) {
    try {
      ticks += cpuTicks(Number(pid));
    } catch {
      // a backend that ended between the query and the read
    }
  }
  return { ticks, xacts: Number(row.xacts) };
}

/**
 * µs of CPU per request and requests per second, for one wrk run against `pid`; and per request,
 * the CPU of the Postgres backends serving the benchmark database and its transactions.
 */
async function measure(pid: number, url: string, key: string, lua: string) {
  const before = cpuTicks(pid);
  const dbBefore = await databaseSide();
  const requests = await wrk(url, key, lua);
  const ticks = cpuTicks(pid) - before;
  const dbAfter = await databaseSide();
  return {
    us: (ticks * TICK_US) / requests,
    rps: requests / SECONDS,
    dbUs: ((dbAfter.ticks - dbBefore.ticks) * TICK_US) / requests,
    xacts: (dbAfter.xacts - dbBefore.xacts) / requests,
  };
}

/** Deno flags of a process: with `--profile`, a CPU profile into `DIR/<name>` at exit. */
function profiled(name: string, flags = ["-A"]): string[] {
  return values.profile
    ? [...flags, "--cpu-prof", `--cpu-prof-dir=${values.profile}/${name}`]
    : flags;
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
  svc = await startApi(test.url!, {
    workers: 1,
    pool: 10,
    env: Object.fromEntries(values.env.map((kv) => kv.split(/=(.*)/s).slice(0, 2))),
    flags: profiled("api", []),
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
  const rows: string[] = [];
  for (const c of cases) {
    const api = {
      us: [] as number[],
      rps: [] as number[],
      dbUs: [] as number[],
      xacts: [] as number[],
    };
    const flo = {
      us: [] as number[],
      rps: [] as number[],
      dbUs: [] as number[],
      xacts: [] as number[],
    };
    const add = (to: typeof api, m: Awaited<ReturnType<typeof measure>>) => {
      to.us.push(m.us), to.rps.push(m.rps), to.dbUs.push(m.dbUs), to.xacts.push(m.xacts);
    };
    for (let round = 0; round < ROUNDS; round++) {
      add(api, await measure(svc.pid, svc.url + c.path, key, c.lua));
      add(flo, await measure(floor.pid, floor.url + c.path, key, c.lua));
    }
    const [au, fu, ar, fr] = [median(api.us), median(flo.us), median(api.rps), median(flo.rps)];
    rows.push(
      `| ${c.name} | ${au.toFixed(0)} | ${fu.toFixed(0)} | ${(au / fu).toFixed(2)} | ${
        ar.toFixed(0)
      } | ${fr.toFixed(0)} | ${Math.round((ar / fr) * 100)}% | ${median(api.dbUs).toFixed(0)} / ${
        median(flo.dbUs).toFixed(0)
      } | ${median(api.xacts).toFixed(2)} / ${median(flo.xacts).toFixed(2)} |`,
    );
  }
  const report = `Run ${
    new Date().toISOString()
  }, median of ${ROUNDS} alternating rounds of ${SECONDS} s, wrk 1 thread, 16 connections, Deno ${Deno.version.deno}; load average at the end ${
    Deno.loadavg().map((x) => x.toFixed(2)).join(" ")
  }.

| measure | API CPU µs/request | floor CPU µs/request | API / floor | API req/s | floor req/s | API / floor req/s | Postgres CPU µs/request, API / floor | transactions/request, API / floor |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
${rows.join("\n")}`;
  Deno.stdout.writeSync(new TextEncoder().encode(report + "\n"));
} finally {
  await svc?.stop("SIGINT");
  await floor?.stop("SIGINT");
  await test.drop();
}
