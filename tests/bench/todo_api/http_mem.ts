/**
 * CPU per request of todo-api's whole HTTP path next to the HTTP floor's, with the database
 * answering from memory (run on demand, not a test):
 *
 *   deno run -A tests/bench/todo_api/http_mem.ts [--seconds 3] [--rounds 3] [--case create|list] \
 *     [--before DIR]
 *
 * `handler.ts` calls the handlers in-process and so misses what `Deno.serve` does with what they
 * return (fast paths for string bodies, `info.completed`, request bodies as streams); `cpu.ts`
 * includes postgres.js and a Postgres server, whose costs are the same for both but whose noise
 * is not. Here each side is a `Deno.serve` process of its own (`--serve api`: `createApp` in the
 * kit's `startServer` with the access log written to stdout (`/dev/null`), as deployed;
 * `--serve floor`: `floor_server.ts`'s handler), on the same canned rows as `handler.ts`, and
 * wrk (1 thread, 16 connections) drives them in alternating rounds; each process's
 * utime + stime is divided by the requests wrk completed. A third side, `--serve kit`, is the
 * floor's handler behind the kit's server, route table and default stack (as `floor_kit.ts
 * stack`), so the kit's own share shows without todo-api's. `--before DIR` also serves the kit
 * and the API from another checkout (its copy of this file is used, so copy this one there),
 * in the same rounds.
 */
import { parseArgs } from "node:util";
import { createLifecycle } from "@svc/shared/lifecycle";
import { createLogger } from "@svc/shared/log";
import { createMetrics } from "@svc/shared/metrics";
import { startServer } from "@svc/shared/server";
import { createApp } from "@svc/todo-api";
import { KEY, memoryDb } from "./memory_db.ts";
import { floorHandler } from "./statements.ts";
import { createRouter, withDefaultStack } from "@svc/shared/http";
import { wrk } from "./wrk.ts";
import { cpuTicks, median, TICK_US } from "./measure.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    serve: { type: "string" },
    seconds: { type: "string", default: "3" },
    rounds: { type: "string", default: "3" },
    case: { type: "string" },
    before: { type: "string" },
  },
});

const db = memoryDb;

function announce(url: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(url + "\n"));
}

if (values.serve === "floor") {
  Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ port }) => announce(`http://127.0.0.1:${port}`),
  }, floorHandler((text, params) => db.query(text, params)));
  // Exit through Deno.exit, so that `--cpu-prof` writes its profile.
  Deno.addSignalListener("SIGINT", () => Deno.exit(0));
} else if (values.serve === "kit") {
  const logger = createLogger();
  const lifecycle = createLifecycle({ logger, handleSignals: true });
  const floor = floorHandler((text, params) => db.query(text, params));
  const router = createRouter([
    { method: "POST", pattern: "/v1/todos", handler: (req) => floor(req) },
    { method: "GET", pattern: "/v1/todos", handler: (req) => floor(req) },
  ]);
  const handler = withDefaultStack(router, {
    logger,
    metrics: createMetrics({ service: "floor" }),
  });
  const server = await startServer([{ name: "api", addr: "127.0.0.1:0", handler }], {
    logger,
    lifecycle,
  });
  announce(server.urls.api);
} else if (values.serve === "api") {
  const logger = createLogger(); // stdout, buffered, info level: the access log as deployed
  const lifecycle = createLifecycle({ logger, handleSignals: true });
  const metrics = createMetrics({ service: "todo-api" });
  const api = createApp({ db, migrator: { pending: () => Promise.resolve([]) }, logger, metrics });
  const server = await startServer([{ name: "api", addr: "127.0.0.1:0", handler: api }], {
    logger,
    lifecycle,
  });
  announce(server.urls.api);
} else {
  const SECONDS = Number(values.seconds);
  const ROUNDS = Number(values.rounds);
  const start = async (side: string, root?: string) => {
    const script = root
      ? `${root}/tests/bench/todo_api/http_mem.ts`
      : new URL(import.meta.url).pathname;
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", script, "--serve", side],
      cwd: root,
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`${side} did not start: ${text}`);
      text += value;
    }
    reader.releaseLock();
    return { child, url: text.trim().split("\n").at(-1)! };
  };
  const sides = [
    { name: "floor", ...await start("floor") },
    { name: "kit stack", ...await start("kit") },
    { name: "todo-api", ...await start("api") },
  ];
  if (values.before) {
    sides.push({ name: "kit stack, before", ...await start("kit", values.before) });
    sides.push({ name: "todo-api, before", ...await start("api", values.before) });
  }
  const post = `wrk.method = "POST"\nwrk.body = '{"title":"benchmark todo"}'\n` +
    `wrk.headers["Content-Type"] = "application/json"\n`;
  const cases = [
    { name: "create", path: "/v1/todos", lua: post },
    { name: "list", path: "/v1/todos?limit=20", lua: "" },
  ].filter((c) => !values.case || c.name === values.case);
  const run = async (side: { child: Deno.ChildProcess; url: string }, c: typeof cases[0]) => {
    const before = cpuTicks(side.child.pid);
    const r = await wrk(side.url + c.path, {
      key: KEY,
      lua: c.lua,
      seconds: SECONDS,
      connections: 16,
    });
    return ((cpuTicks(side.child.pid) - before) * TICK_US) / r.requests;
  };
  const rows: string[] = [];
  try {
    for (const c of cases) {
      for (const side of sides) await run(side, c); // warm-up
      const us = sides.map(() => [] as number[]);
      for (let i = 0; i < ROUNDS; i++) {
        const order = i % 2 ? [...sides.keys()].reverse() : [...sides.keys()];
        for (const s of order) us[s].push(await run(sides[s], c));
      }
      const floorUs = median(us[0]);
      for (let s = 0; s < sides.length; s++) {
        const m = median(us[s]);
        rows.push(
          `| ${c.name} | ${sides[s].name} | ${m.toFixed(1)} | ${(m - floorUs).toFixed(1)} | ${
            (m / floorUs).toFixed(2)
          } |`,
        );
      }
    }
  } finally {
    for (const side of sides) {
      side.child.kill("SIGINT");
      await side.child.status;
    }
  }
  Deno.stdout.writeSync(
    new TextEncoder().encode(
      `Memory database, median of ${ROUNDS} rounds in alternating order of ${SECONDS} s, wrk 1 thread, 16 connections; load average ${
        Deno.loadavg().map((x) => x.toFixed(2)).join(" ")
      }.

| request | server | CPU µs/request (median) | over the floor | / floor |
| --- | --- | --- | --- | --- |
${rows.join("\n")}
`,
    ),
  );
}
