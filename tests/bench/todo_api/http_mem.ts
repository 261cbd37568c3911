/**
 * CPU per request of todo-api's whole HTTP path next to the HTTP floor's, with the database
 * answering from memory (run on demand, not a test):
 *
 *   deno run -A tests/bench/todo_api/http_mem.ts [--seconds 3] [--rounds 3] [--case create|list]
 *
 * `handler.ts` calls the handlers in-process and so misses what `Deno.serve` does with what they
 * return (fast paths for string bodies, `info.completed`, request bodies as streams); `cpu.ts`
 * includes postgres.js and a Postgres server, whose costs are the same for both but whose noise
 * is not. Here each side is a `Deno.serve` process of its own (`--serve api`: `createApp` in the
 * kit's `startServer` with the access log written to stdout (`/dev/null`), as deployed;
 * `--serve floor`: `floor_server.ts`'s handler), on the same canned rows as `handler.ts`, and
 * wrk (1 thread, 16 connections) drives them in alternating rounds; each process's
 * utime + stime is divided by the requests wrk completed.
 */
import { parseArgs } from "node:util";
import { createLifecycle } from "@svc/shared/lifecycle";
import { createLogger } from "@svc/shared/log";
import { createMetrics } from "@svc/shared/metrics";
import { startServer } from "@svc/shared/server";
import { createApp } from "@svc/todo-api";
import { KEY, memoryDb } from "./memory_db.ts";
import { floorHandler } from "./statements.ts";
import { wrk } from "./wrk.ts";
import { cpuTicks, median, TICK_US } from "./measure.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    serve: { type: "string" },
    seconds: { type: "string", default: "3" },
    rounds: { type: "string", default: "3" },
    case: { type: "string" },
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
  const start = async (side: string) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL(import.meta.url).pathname, "--serve", side],
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
  const api = await start("api");
  const floor = await start("floor");
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
      await run(api, c); // warm-up
      await run(floor, c);
      const a: number[] = [];
      const f: number[] = [];
      for (let i = 0; i < ROUNDS; i++) a.push(await run(api, c)), f.push(await run(floor, c));
      rows.push(
        `| ${c.name} | ${median(a).toFixed(0)} | ${median(f).toFixed(0)} | ${
          (median(a) / median(f)).toFixed(2)
        } |`,
      );
    }
  } finally {
    for (const side of [api, floor]) {
      side.child.kill("SIGINT");
      await side.child.status;
    }
  }
  Deno.stdout.writeSync(
    new TextEncoder().encode(
      `Memory database, median of ${ROUNDS} alternating rounds of ${SECONDS} s, wrk 1 thread, 16 connections; load average ${
        Deno.loadavg().map((x) => x.toFixed(2)).join(" ")
      }.

| request | API CPU µs/request | floor CPU µs/request | API / floor |
| --- | --- | --- | --- |
${rows.join("\n")}
`,
    ),
  );
}
