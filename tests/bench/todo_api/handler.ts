/**
 * The service's own CPU per request, without network or database (run on demand, not a test):
 *
 *   deno run -A tests/bench/todo_api/handler.ts [--n 20000] [--rounds 5]
 *
 * Calls todo-api's whole HTTP handler (`createApp`: the kit stack, authentication, validation,
 * `$schema` bodies, cursor, metrics, access log to a discarding writer) in-process with a
 * database that answers from memory, and, as the baseline, the HTTP floor's handler
 * (`floor_server.ts`'s work: parse, answer rows as JSON) on the same canned rows. Both build the
 * same `Request`s and read the whole response body. Reports CPU µs per request (all threads, so
 * the figures hold on a busy machine) and the ratio.
 */
import { parseArgs } from "node:util";
import { createLogger } from "@svc/shared/log";
import { createMetrics } from "@svc/shared/metrics";
import { createApp } from "@svc/todo-api";
import { KEY, memoryDb } from "./memory_db.ts";
import { floorHandler } from "./statements.ts";
import { median } from "./measure.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { n: { type: "string", default: "20000" }, rounds: { type: "string", default: "5" } },
});
const N = Number(values.n);
const ROUNDS = Number(values.rounds);

const db = memoryDb;

const app = createApp({
  db,
  migrator: { pending: () => Promise.resolve([]) },
  logger: createLogger({ write: () => {} }), // info level: the access-log line is built
  metrics: createMetrics({ service: "todo-api" }),
});

/** The floor's handler (floor_server.ts) on the same canned rows. */
const floor = floorHandler((text, params) => db.query(text, params));

const info = (): Deno.ServeHandlerInfo => ({
  remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 40000 },
  completed: Promise.resolve(),
});
const requests = {
  create: () =>
    new Request("http://127.0.0.1:8081/v1/todos", {
      method: "POST",
      headers: { "x-api-key": KEY, "content-type": "application/json", host: "127.0.0.1:8081" },
      body: '{"title":"benchmark todo"}',
    }),
  list: () =>
    new Request("http://127.0.0.1:8081/v1/todos?limit=20", {
      headers: { "x-api-key": KEY, host: "127.0.0.1:8081" },
    }),
};

async function perRequest(
  handler: (req: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response>,
  make: () => Request,
): Promise<number> {
  const t0 = cpuMicros();
  for (let i = 0; i < N; i++) {
    const res = await handler(make(), info());
    if (res.status >= 300) throw new Error(`status ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  }
  return (cpuMicros() - t0) / N;
}

/**
 * CPU time this process has run, in µs, over all its threads (V8's GC helpers included), from
 * each thread's `schedstat` (ns): unlike the wall clock, it does not grow while other processes
 * hold the cores, so figures from a busy machine compare with a quiet one's.
 */
function cpuMicros(): number {
  let ns = 0;
  for (const task of Deno.readDirSync("/proc/self/task")) {
    try {
      ns += Number(Deno.readTextFileSync(`/proc/self/task/${task.name}/schedstat`).split(" ")[0]);
    } catch {
      // a thread that ended meanwhile
    }
  }
  return ns / 1000;
}

const rows: string[] = [];
for (const [name, make] of Object.entries(requests)) {
  await perRequest(app, make); // warm-up (JIT, key cache, cursor key)
  await perRequest(floor, make);
  const a: number[] = [];
  const f: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    a.push(await perRequest(app, make));
    f.push(await perRequest(floor, make));
  }
  rows.push(
    `| ${name} | ${median(a).toFixed(1)} | ${median(f).toFixed(1)} | ${
      (median(a) - median(f)).toFixed(1)
    } | ${(median(a) / median(f)).toFixed(2)} |`,
  );
}
Deno.stdout.writeSync(
  new TextEncoder().encode(`In-process, ${N} requests × ${ROUNDS} rounds, Deno ${Deno.version.deno}.

| request | todo-api µs/request | floor handler µs/request | difference | ratio |
| --- | --- | --- | --- | --- |
${rows.join("\n")}
`),
);
