/**
 * The service's own CPU per request, without network or database (run on demand, not a test):
 *
 *   deno run -A tests/bench/todo_api/handler.ts [--n 20000] [--rounds 5]
 *
 * Calls todo-api's whole HTTP handler (`createApp`: the kit stack, authentication, validation,
 * `$schema` bodies, cursor, metrics, access log to a discarding writer) in-process with a
 * database that answers from memory, and, as the baseline, the HTTP floor's handler
 * (`floor_server.ts`'s work: parse, answer rows as JSON) on the same canned rows; between them,
 * the floor's handler behind the kit's route table and default stack (`floor_kit.ts stack`'s
 * handler, without the server). All build the same `Request`s and read the whole response body.
 * Reports CPU µs per request (all threads, so the figures hold on a busy machine), bytes V8
 * allocated per request (`total_allocated_bytes` of `node:v8`'s heap statistics, garbage
 * included), and the ratios to the floor.
 */
import { parseArgs } from "node:util";
import { getHeapStatistics } from "node:v8";
import { createRouter, type Handler, withDefaultStack } from "@svc/shared/http";
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

/** The floor's handler behind the kit's route table and default stack (as `floor_kit.ts`). */
const router = createRouter([
  { method: "POST", pattern: "/v1/todos", handler: (req) => floor(req) },
  { method: "GET", pattern: "/v1/todos", handler: (req) => floor(req) },
]);
const kitStack = withDefaultStack(router, {
  logger: createLogger({ write: () => {} }),
  metrics: createMetrics({ service: "floor" }),
});

const info = (): Deno.ServeHandlerInfo => ({
  remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 40000 },
  completed: Promise.resolve(),
});
const CREATE_BODY = '{"title":"benchmark todo"}';
const requests = {
  create: () =>
    new Request("http://127.0.0.1:8081/v1/todos", {
      method: "POST",
      // With its length, as wrk and every client send it (`Deno.serve` hands the declared body
      // over whole; without it the kit reads a stream, a path no served create takes).
      headers: {
        "x-api-key": KEY,
        "content-type": "application/json",
        "content-length": String(CREATE_BODY.length),
        host: "127.0.0.1:8081",
      },
      body: CREATE_BODY,
    }),
  list: () =>
    new Request("http://127.0.0.1:8081/v1/todos?limit=20", {
      headers: { "x-api-key": KEY, host: "127.0.0.1:8081" },
    }),
};

/** Bytes V8 has allocated in this isolate so far (Deno 2.9's heap statistics have the field). */
function allocated(): number {
  return (getHeapStatistics() as { total_allocated_bytes?: number }).total_allocated_bytes ?? NaN;
}

/** CPU µs and bytes allocated per request of `handler` over `N` requests. */
async function perRequest(
  handler: Handler,
  make: () => Request,
): Promise<{ us: number; bytes: number }> {
  const t0 = cpuMicros();
  const b0 = allocated();
  for (let i = 0; i < N; i++) {
    const res = await handler(make(), info());
    if (res.status >= 300) throw new Error(`status ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  }
  const bytes = (allocated() - b0) / N;
  return { us: (cpuMicros() - t0) / N, bytes };
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

const sides: [string, Handler][] = [["floor", floor], ["kit stack", kitStack], ["todo-api", app]];
const rows: string[] = [];
for (const [name, make] of Object.entries(requests)) {
  for (const [, handler] of sides) await perRequest(handler, make); // warm-up (JIT, key cache)
  const us = sides.map(() => [] as number[]);
  const bytes = sides.map(() => [] as number[]);
  for (let r = 0; r < ROUNDS; r++) {
    // alternating order, so a slow spell of the shared machine does not fall on one side
    const order = r % 2 ? [...sides.keys()].reverse() : [...sides.keys()];
    for (const i of order) {
      const m = await perRequest(sides[i][1], make);
      us[i].push(m.us);
      bytes[i].push(m.bytes);
    }
  }
  const [fu, fb] = [median(us[0]), median(bytes[0])];
  for (let i = 0; i < sides.length; i++) {
    const [u, b] = [median(us[i]), median(bytes[i])];
    rows.push(
      `| ${name} | ${sides[i][0]} | ${u.toFixed(1)} | ${(u - fu).toFixed(1)} | ${
        (u / fu).toFixed(2)
      } | ${(b / 1024).toFixed(1)} | ${(b / fb).toFixed(2)} |`,
    );
  }
}
Deno.stdout.writeSync(
  new TextEncoder().encode(
    `In-process, ${N} requests × ${ROUNDS} rounds (alternating order), Deno ${Deno.version.deno}.

| request | handler | CPU µs/request | over the floor | / floor | KiB allocated/request | / floor |
| --- | --- | --- | --- | --- | --- | --- |
${rows.join("\n")}
`,
  ),
);
