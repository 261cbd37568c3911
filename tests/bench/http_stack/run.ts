// deno-lint-ignore-file no-console -- a benchmark reports on the console
/**
 * Per-request cost of the kit's route table and default stack, in process (no sockets), next to
 * the hand-composed shape todo-api had before (a regex `route()` and three wrappers), measured in
 * the same run with interleaved rounds. Also shows what compiling the patterns saves over calling
 * `URLPattern.exec` per route.
 *
 *     deno run -A tests/bench/http_stack/run.ts [--requests 20000] [--rounds 5]
 *
 * Prints a Markdown table for tests/bench/RESULTS.md.
 * @module
 */
import { parseArgs } from "node:util";
import {
  createRouter,
  type Handler,
  localInfo,
  type Route,
  withAccessLog,
  withDefaultStack,
  withErrors,
  withRequestId,
} from "@svc/shared/http";
import { createLogger } from "@svc/shared/log";
import { createMetrics, withHttpMetrics } from "@svc/shared/metrics";
import { HttpError } from "@svc/shared/problem";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    requests: { type: "string", default: "20000" },
    rounds: { type: "string", default: "5" },
  },
});
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);
const logger = createLogger({ write: () => {} });
const ok = () => new Response("{}");
const PATHS = ["/v1/todos", "/v1/todos/0b4e", "/v1/todos/0b4e/complete", "/healthz", "/nope"];

/** todo-api before the route table: regex dispatch, then request id, access log, metrics. */
function before(): Handler {
  const TODO = /^\/v1\/todos\/([^/]+)$/;
  const COMPLETE = /^\/v1\/todos\/([^/]+)\/complete$/;
  const routeOf = (path: string) =>
    path === "/v1/todos"
      ? path
      : COMPLETE.test(path)
      ? "/v1/todos/{id}/complete"
      : TODO.test(path)
      ? "/v1/todos/{id}"
      : path === "/healthz"
      ? path
      : "unmatched";
  const app: Handler = (req) => {
    const path = new URL(req.url).pathname;
    if (path === "/healthz" || path === "/v1/todos") return ok();
    if (COMPLETE.exec(path) || TODO.exec(path)) return ok();
    throw new HttpError(404, "not_found", "no route for this path");
  };
  const metrics = createMetrics({ service: "bench" });
  return withRequestId(withAccessLog(
    withHttpMetrics(withErrors(app), metrics, { route: (r) => routeOf(new URL(r.url).pathname) }),
    { logger },
  ));
}

const TABLE: Route[] = [
  { method: ["GET", "HEAD"], pattern: "/healthz", handler: ok },
  { method: "GET", pattern: "/v1/todos", handler: ok },
  { method: "POST", pattern: "/v1/todos", handler: ok },
  { method: "GET", pattern: "/v1/todos/:id", handler: ok },
  { method: "POST", pattern: "/v1/todos/:id/complete", handler: ok },
];

/** The route table inside the default stack (adds the request timeout and 405 handling). */
function after(): Handler {
  return withDefaultStack(createRouter(TABLE), {
    logger,
    metrics: createMetrics({ service: "bench" }),
  });
}

/** Same stack, but every route matched with `URLPattern.exec` (what the table avoids). */
function urlPatternExec(): Handler {
  const table = TABLE.map((r) => ({ ...r, p: new URLPattern({ pathname: r.pattern as string }) }));
  const router = createRouter([{
    method: "*",
    pattern: "/*",
    handler: (_req, ctx) => {
      for (const r of table) if (r.p.exec(ctx.url.href)) return ok();
      throw new HttpError(404, "not_found");
    },
  }]);
  return withDefaultStack(router, { logger, metrics: createMetrics({ service: "bench" }) });
}

/** µs per request with `inFlight` requests outstanding at a time (1: sequential; 16: like wrk). */
async function measure(handler: Handler, inFlight: number): Promise<number> {
  const info = localInfo();
  let next = 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: inFlight }, async () => {
    for (let i = next++; i < REQUESTS; i = next++) {
      const method = i % 5 === 2 ? "POST" : "GET";
      const res = await handler(new Request(`http://127.0.0.1${PATHS[i % 5]}`, { method }), info);
      await res.body?.cancel();
    }
  }));
  return (performance.now() - start) * 1000 / REQUESTS;
}

const variants = { before: before(), after: after(), "URLPattern.exec": urlPatternExec() };
for (const h of Object.values(variants)) await measure(h, 16); // warm-up
const samples: Record<string, { seq: number[]; conc: number[] }> = {};
for (const name of Object.keys(variants)) samples[name] = { seq: [], conc: [] };
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, h] of Object.entries(variants)) {
    samples[name].seq.push(await measure(h, 1));
    samples[name].conc.push(await measure(h, 16));
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = { seq: median(samples.before.seq), conc: median(samples.before.conc) };
console.log(
  `Run ${new Date().toISOString()}, ${ROUNDS} interleaved rounds of ${REQUESTS} ` +
    `in-process requests (5 paths: list, get, complete, healthz, 404), medians.\n`,
);
console.log(
  "| handler | µs/request, 1 in flight | vs before | µs/request, 16 in flight | vs before |",
);
console.log("| --- | --- | --- | --- | --- |");
for (const [name, { seq, conc }] of Object.entries(samples)) {
  const [s1, c1] = [median(seq), median(conc)];
  console.log(
    `| ${name} | ${s1.toFixed(2)} | ${(s1 / base.seq).toFixed(2)}× | ${c1.toFixed(2)} | ` +
      `${(c1 / base.conc).toFixed(2)}× |`,
  );
}
console.log(`\nLoad average at the end: ${Deno.loadavg().join(" ")}.`);
