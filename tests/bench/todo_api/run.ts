/**
 * todo-api benchmark (run on demand, not a test):
 *
 *   TEST_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/postgres \
 *     deno run -A tests/bench/todo_api/run.ts [--seconds 5] [--connections 16] [--rounds 6] \
 *       [--pool 10] [--workers 2] [--warm 3] [--same-process] [--check]
 *
 * 1. create and list throughput through the API (wrk, 1 thread, 16 connections, against the real
 *    `main.ts serve` process in its shipped form — the permission and V8 flags of
 *    `deploy/services.ts` — once with `--workers 1` and once with `--workers N`, each worker
 *    with its own pool of `--pool` connections as deployed) next to the same SQL issued directly
 *    with `postgres` from this process (16 concurrent loops on a pool of `--pool`), alternating
 *    in the same run;
 *    and next to the HTTP floor (`floor_server.ts`: `Deno.serve` + postgres.js running the same
 *    statements with none of the service's work) and the peer (`peer_server.ts`: the same two
 *    routes written with Hono, pino, prom-client, zod and postgres.js the way a TypeScript team
 *    would, with todo-api's key check and signed cursor), in the same rounds. API (1 worker), peer
 *    and floor run back to back in each round, in an order that reverses from round to round
 *    (A B C, C B A, …), and the headlines API / floor and API / peer are the medians of the
 *    rounds' ratios: throughput on this shared 2-core machine drifts by tens of percent within
 *    minutes, and a ratio of runs seconds apart drifts far less. For those three it also reports
 *    the process's CPU per request (`/proc/<pid>/stat` around each wrk run), the steadier figure.
 *    Every round starts those three afresh and warms each up on both paths for `--warm` seconds
 *    (unmeasured), so one process's luck is one sample among the rounds (`restartThree`);
 *    `--same-process` keeps the first three for every round instead;
 * 2. list latency of the first page and of a page 90 000 rows deep in a 100 000-row table.
 * Prints a Markdown table for tests/bench/RESULTS.md. Needs `wrk` (Debian package).
 *
 * Before measuring, the peer must answer the benchmark's requests as todo-api does
 * (`peer_check.ts`: statuses, headers, JSON bodies); the run stops with the differences if not.
 * `--check` does only that (no wrk needed) and exits 0 when they agree, 1 when they do not.
 */
import { parseArgs } from "node:util";
import postgres from "postgres";
import { FIRST_PAGE, INSERT } from "./statements.ts";
import { wrk as runWrk } from "./wrk.ts";
import { type ServiceProcess, startService } from "@svc/testing";
import { startApi } from "./api_process.ts";
import { createTestDatabase } from "../../../services/todo-api/_test_support.ts";
import { createApiKeyStore, createMigrator, loadMigrations } from "@svc/todo-api";
import { cpuTicks, median, TICK_US } from "./measure.ts";
import { peerMismatches } from "./peer_check.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    seconds: { type: "string", default: "5" },
    connections: { type: "string", default: "16" },
    rounds: { type: "string", default: "6" },
    pool: { type: "string", default: "10" },
    workers: { type: "string", default: "2" },
    check: { type: "boolean", default: false },
    warm: { type: "string", default: "3" },
    "same-process": { type: "boolean", default: false },
  },
});
const WARM = Number(values.warm);
const FRESH = !values["same-process"];
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const POOL = Number(values.pool);
const WORKERS = Number(values.workers);
const FLOOR = new URL("./floor_server.ts", import.meta.url).pathname;
const PEER = new URL("./peer_server.ts", import.meta.url).pathname;
/** What the peer is written with, as resolved here (tests/deno.json pins them). */
const PEER_LIBRARIES = ["hono", "pino", "prom-client", "zod", "postgres"]
  .map((name) => /\.deno\/([^/]+)\//.exec(import.meta.resolve(name))?.[1] ?? name).join(", ");

if (!Deno.env.get("TEST_DATABASE_URL")) {
  Deno.stderr.writeSync(new TextEncoder().encode("set TEST_DATABASE_URL to a Postgres server\n"));
  Deno.exit(2);
}

function wrk(url: string, key: string, lua: string): Promise<number> {
  return runWrk(url, { key, lua, seconds: SECONDS, connections: CONNECTIONS }).then((r) => r.rps);
}

async function raw(sql: postgres.Sql, run: () => Promise<unknown>): Promise<number> {
  const end = performance.now() + SECONDS * 1000;
  let count = 0;
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (performance.now() < end) {
      await run();
      count++;
    }
  }));
  void sql;
  return count / SECONDS;
}

function stats(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { p50: q(0.5), p90: q(0.9), p99: q(0.99) };
}

/** Sequential requests alternating between the URLs, so machine noise hits both alike. */
async function latencies(urls: string[], key: string, n: number): Promise<number[][]> {
  const out = urls.map(() => [] as number[]);
  for (let i = 0; i < n; i++) {
    for (const [j, url] of urls.entries()) {
      const t0 = performance.now();
      const res = await fetch(url, { headers: { "x-api-key": key } });
      await res.arrayBuffer();
      out[j].push(performance.now() - t0);
    }
  }
  return out;
}

const test = await createTestDatabase("postgres");
let svc: ServiceProcess | undefined;
let svcN: ServiceProcess | undefined;
let floor: ServiceProcess | undefined;
let peer: ServiceProcess | undefined;
// the same connection settings as the service's pool (store/postgres_db.ts)
const sql = postgres(test.url!, {
  max: POOL,
  onnotice: () => {},
  connection: { plan_cache_mode: "force_generic_plan" },
});
const serveWith = (workers: number) => startApi(test.url!, { workers, pool: POOL });
const helper = (entry: string) =>
  startService({
    entry,
    args: [test.url!, String(POOL)],
    healthPath: null,
    timeoutMs: 60_000,
    outputLimit: 64 * 1024,
  });
try {
  await createMigrator(test.db, loadMigrations()).up();
  const { key } = await createApiKeyStore(test.db).create({ subject: "bench", roles: ["user"] });
  svc = await serveWith(1);
  peer = await helper(PEER);
  // The peer is only a peer if it answers as todo-api does: checked before anything is measured.
  const mismatches = await peerMismatches(svc.url, peer.url, key);
  if (mismatches.length > 0) {
    throw new Error(`the peer does not answer as todo-api does:\n${mismatches.join("\n")}`);
  }
  if (values.check) {
    Deno.stdout.writeSync(
      new TextEncoder().encode("peer check: the peer answers create and list as todo-api does\n"),
    );
  } else {
    svcN = await serveWith(WORKERS);
    if (!FRESH) floor = await helper(FLOOR); // fresh rounds start their own
    await measure(svcN, key);
  }
} finally {
  await svc?.stop();
  await svcN?.stop();
  await floor?.stop();
  await peer?.stop();
  await sql.end({ timeout: 5 });
  await test.drop();
}

/**
 * API (1 worker), peer and floor started afresh and warmed up on both paths (`--warm` seconds
 * each, unmeasured): each round measures new processes, so one process's luck (the JIT's
 * choices, the heap's layout: a few µs of CPU per request from one process to the next) is one
 * sample among the rounds, as JMH's forks make it, not a bias of every round.
 */
async function restartThree(key: string, post: string): Promise<void> {
  await Promise.all([svc?.stop(), peer?.stop(), floor?.stop()]);
  svc = await serveWith(1);
  peer = await helper(PEER);
  floor = await helper(FLOOR);
  for (const server of [svc, peer, floor]) {
    for (const [path, lua] of [["/v1/todos", post], ["/v1/todos?limit=20", ""]]) {
      await runWrk(server.url + path, { key, lua, seconds: WARM, connections: CONNECTIONS });
    }
  }
}

/** The throughput rounds and the latency table, printed as Markdown. */
async function measure(svcN: ServiceProcess, key: string): Promise<void> {
  const post = `wrk.method = "POST"\nwrk.body = '{"title":"benchmark todo"}'\n` +
    `wrk.headers["Content-Type"] = "application/json"\n`;
  // warm up every path (JIT, prepared statements, pools); fresh rounds warm their own three
  for (const server of FRESH ? [svcN] : [svc!, svcN, floor!, peer!]) {
    await wrk(`${server.url}/v1/todos`, key, post);
    await wrk(`${server.url}/v1/todos?limit=20`, key, "");
  }
  await raw(sql, () => sql.unsafe(INSERT, ["raw", "benchmark todo"], { prepare: true }));

  // alternate API and raw several times and keep medians: this 2-core machine is shared
  const ratios = (a: number[], b: number[]) => a.map((x, i) => x / b[i]);
  const runs = {
    apiCreate: [] as number[],
    apiNCreate: [] as number[],
    rawCreate: [] as number[],
    floorCreate: [] as number[],
    peerCreate: [] as number[],
    apiList: [] as number[],
    apiNList: [] as number[],
    rawList: [] as number[],
    floorList: [] as number[],
    peerList: [] as number[],
  };
  // CPU per request (utime + stime of the process around its wrk run): steadier than req/s here
  const cpu = {
    apiCreate: [] as number[],
    peerCreate: [] as number[],
    floorCreate: [] as number[],
    apiList: [] as number[],
    peerList: [] as number[],
    floorList: [] as number[],
  };
  for (let round = 0; round < ROUNDS; round++) {
    if (FRESH) await restartThree(key, post);
    const [api, other, base] = [svc!, peer!, floor!];
    // API, peer and floor back to back, the order reversed every round: drift hits all alike
    const three = async (path: string, lua: string) => {
      const order = [api, other, base];
      if (round % 2 === 1) order.reverse();
      const rps = new Map<ServiceProcess, number>();
      const us = new Map<ServiceProcess, number>();
      for (const server of order) {
        const ticks = cpuTicks(server.pid);
        const run = await runWrk(`${server.url}${path}`, {
          key,
          lua,
          seconds: SECONDS,
          connections: CONNECTIONS,
        });
        us.set(server, ((cpuTicks(server.pid) - ticks) * TICK_US) / run.requests);
        rps.set(server, run.rps);
      }
      const [apiUs, peerUs, floorUs] = [us.get(api)!, us.get(other)!, us.get(base)!];
      return {
        rps: [rps.get(api)!, rps.get(other)!, rps.get(base)!],
        us: { apiUs, peerUs, floorUs },
      };
    };
    const create = await three("/v1/todos", post);
    const [apiC, peerC, floorC] = create.rps;
    cpu.apiCreate.push(create.us.apiUs);
    cpu.peerCreate.push(create.us.peerUs);
    cpu.floorCreate.push(create.us.floorUs);
    runs.apiCreate.push(apiC);
    runs.peerCreate.push(peerC);
    runs.floorCreate.push(floorC);
    runs.apiNCreate.push(await wrk(`${svcN.url}/v1/todos`, key, post));
    runs.rawCreate.push(
      await raw(sql, () => sql.unsafe(INSERT, ["bench", "benchmark todo"], { prepare: true })),
    );
    const list = await three("/v1/todos?limit=20", "");
    const [apiL, peerL, floorL] = list.rps;
    cpu.apiList.push(list.us.apiUs);
    cpu.peerList.push(list.us.peerUs);
    cpu.floorList.push(list.us.floorUs);
    runs.apiList.push(apiL);
    runs.peerList.push(peerL);
    runs.floorList.push(floorL);
    runs.apiNList.push(await wrk(`${svcN.url}/v1/todos?limit=20`, key, ""));
    runs.rawList.push(
      await raw(sql, () => sql.unsafe(FIRST_PAGE, [21, "bench"], { prepare: true })),
    );
  }
  const apiCreate = median(runs.apiCreate);
  const apiNCreate = median(runs.apiNCreate);
  const rawCreate = median(runs.rawCreate);
  const apiList = median(runs.apiList);
  const apiNList = median(runs.apiNList);
  const rawList = median(runs.rawList);
  const floorCreate = median(runs.floorCreate);
  const floorList = median(runs.floorList);
  const peerCreate = median(runs.peerCreate);
  const peerList = median(runs.peerList);
  // the headlines: the medians of the rounds' API / floor and API / peer ratios (each round ran
  // the three back to back)
  const createVsFloor = ratios(runs.apiCreate, runs.floorCreate);
  const listVsFloor = ratios(runs.apiList, runs.floorList);
  const createVsPeer = ratios(runs.apiCreate, runs.peerCreate);
  const listVsPeer = ratios(runs.apiList, runs.peerList);
  const loadAfterThroughput = Deno.loadavg().map((x) => x.toFixed(2)).join(" ");

  // 100 000 rows for one owner, a tenth of them on one shared timestamp
  await test.db.exec("truncate todos");
  await test.db.query(
    `insert into todos (owner, title, created_at)
     select 'bench', 'row ' || g, timestamptz '2026-01-01' + (g / 10) * interval '1 microsecond'
     from generate_series(1, 100000) g`,
  );
  await test.db.exec("analyze todos");
  let cursor = "";
  for (let seen = 0; seen < 90_000; seen += 100) {
    const res = await fetch(
      `${svc!.url}/v1/todos?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      {
        headers: { "x-api-key": key },
      },
    );
    cursor = (await res.json()).nextCursor;
  }
  const firstUrl = `${svc!.url}/v1/todos?limit=20`;
  const deepUrl = `${firstUrl}&cursor=${encodeURIComponent(cursor)}`;
  await latencies([firstUrl, deepUrl], key, 200);
  const [firstMs, deepMs] = await latencies([firstUrl, deepUrl], key, 2000);
  const first = stats(firstMs);
  const deep = stats(deepMs);
  const apiDeep = await wrk(deepUrl, key, "");
  // for contrast: the same deep page by OFFSET, straight SQL (what keyset pagination avoids)
  const offsetMs: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t0 = performance.now();
    await sql.unsafe(`${FIRST_PAGE} offset 90000`, [20, "bench"], { prepare: true });
    offsetMs.push(performance.now() - t0);
  }
  const offset = stats(offsetMs);

  const pct = (a: number, b: number) => `${Math.round((a / b) * 100)}%`;
  const f = (n: number) => n.toFixed(0);
  const ms = (n: number) => n.toFixed(2);
  const us = (n: number) => n.toFixed(0);
  const report = `Run ${
    new Date().toISOString()
  }, medians of ${ROUNDS} alternating rounds of ${SECONDS} s, ${CONNECTIONS} connections, pool ${POOL}, Postgres ${
    (await sql`show server_version`)[0].server_version
  }, Deno ${Deno.version.deno}.

| measure | API, 1 worker | API, ${WORKERS} workers | HTTP floor | raw SQL (postgres.js, same statement) | 1 worker / raw | ${WORKERS} workers / raw | floor / raw | 1 worker / floor (median of the rounds' ratios) |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
| create (POST /v1/todos), req/s | ${f(apiCreate)} | ${f(apiNCreate)} | ${f(floorCreate)} | ${
    f(rawCreate)
  } | ${pct(apiCreate, rawCreate)} | ${pct(apiNCreate, rawCreate)} | ${
    pct(floorCreate, rawCreate)
  } | ${pct(median(createVsFloor), 1)} |
| list first page, limit 20, req/s | ${f(apiList)} | ${f(apiNList)} | ${f(floorList)} | ${
    f(rawList)
  } | ${pct(apiList, rawList)} | ${pct(apiNList, rawList)} | ${pct(floorList, rawList)} | ${
    pct(median(listVsFloor), 1)
  } |

| list latency, 100 000-row table, limit 20, 2 000 sequential requests each, interleaved | p50 ms | p90 ms | p99 ms |
| --- | --- | --- | --- |
| first page | ${ms(first.p50)} | ${ms(first.p90)} | ${ms(first.p99)} |
| page after row 90 000 (keyset cursor) | ${ms(deep.p50)} | ${ms(deep.p90)} | ${ms(deep.p99)} |
| deep / first (p50) | ${(deep.p50 / first.p50).toFixed(2)} | | |
| for contrast: same page by \`OFFSET 90000\`, raw SQL, 50 runs | ${ms(offset.p50)} | ${
    ms(offset.p90)
  } | ${ms(offset.p99)} |

Against the peer (\`peer_server.ts\`: ${PEER_LIBRARIES}), same rounds:

| measure | API, 1 worker | peer | 1 worker / peer (median of the rounds' ratios) | peer / floor (median of the rounds' ratios) |
| --- | --- | --- | --- | --- |
| create (POST /v1/todos), req/s | ${f(apiCreate)} | ${f(peerCreate)} | ${
    pct(median(createVsPeer), 1)
  } | ${pct(median(ratios(runs.peerCreate, runs.floorCreate)), 1)} |
| list first page, limit 20, req/s | ${f(apiList)} | ${f(peerList)} | ${
    pct(median(listVsPeer), 1)
  } | ${pct(median(ratios(runs.peerList, runs.floorList)), 1)} |

Process CPU per request (utime + stime around each wrk run, median of the rounds; API 1 worker / peer / floor, µs): create ${
    us(median(cpu.apiCreate))
  } / ${us(median(cpu.peerCreate))} / ${us(median(cpu.floorCreate))} (API / peer ${
    pct(median(ratios(cpu.apiCreate, cpu.peerCreate)), 1)
  }); list ${us(median(cpu.apiList))} / ${us(median(cpu.peerList))} / ${
    us(median(cpu.floorList))
  } (API / peer ${pct(median(ratios(cpu.apiList, cpu.peerList)), 1)}).

Deep-page throughput under load: ${f(apiDeep)} req/s vs first page ${f(apiList)} req/s (${
    pct(apiDeep, apiList)
  }).
Per-round API/peer ratios, 1 worker (API, peer, floor; then floor, peer, API; …): create ${
    createVsPeer.map((r) => pct(r, 1)).join(", ")
  }; list ${listVsPeer.map((r) => pct(r, 1)).join(", ")}.
Per-round API/floor ratios, 1 worker: create ${
    createVsFloor.map((r) => pct(r, 1)).join(", ")
  }; list ${listVsFloor.map((r) => pct(r, 1)).join(", ")}.
Per-round API/raw ratios, 1 worker: create ${
    runs.apiCreate.map((a, i) => pct(a, runs.rawCreate[i])).join(", ")
  }; list ${
    runs.apiList.map((a, i) => pct(a, runs.rawList[i])).join(", ")
  }. ${WORKERS} workers: create ${
    runs.apiNCreate.map((a, i) => pct(a, runs.rawCreate[i])).join(", ")
  }; list ${
    runs.apiNList.map((a, i) => pct(a, runs.rawList[i])).join(", ")
  }. Load average after the throughput rounds: ${loadAfterThroughput}; at the end: ${
    Deno.loadavg().map((x) => x.toFixed(2)).join(" ")
  }.`;
  Deno.stdout.writeSync(new TextEncoder().encode(report + "\n"));
}
