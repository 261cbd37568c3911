// deno-lint-ignore-file no-console -- a benchmark reports on the console
/**
 * `deno run -A tests/bench/mcp_server/run.ts [--write]`: execute latency (p50/p99) of a typical
 * program with three capability calls through the in-memory SDK client, against running the same
 * program with the interpreter directly (no MCP, no worker); search latency with 10 000
 * registered capabilities, against a linear substring scan of the same capabilities. With
 * `--write`, replaces the "mcp-server" section of RESULTS.md.
 *
 * `deno run -A tests/bench/mcp_server/run.ts --before DIR [--rounds 15] [--calls 100]`: only the
 * execute measurement, of this tree and of another checkout DIR (the code before a change) in
 * the same run, in alternating rounds (before.ts says how); prints a markdown log, writes nothing.
 * @module
 */
import { parseArgs } from "node:util";
import { run } from "@svc/starlark";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  allowAll,
  CapabilityRegistry,
  createCapabilityServer,
  t,
} from "../../../services/mcp-server/mod.ts";
import { compareExecute } from "./before.ts";
import { demoRegistry, predeclaredOf, SOURCE, timeMany } from "./demo.ts";

const mcpKit = { CapabilityRegistry, t };

const { values: cli } = parseArgs({
  args: Deno.args,
  options: {
    write: { type: "boolean", default: false },
    before: { type: "string" },
    rounds: { type: "string", default: "15" },
    calls: { type: "string", default: "100" },
  },
});
if (cli.before !== undefined) {
  console.log(
    await compareExecute({
      beforeDir: cli.before,
      rounds: Number(cli.rounds),
      calls: Number(cli.calls),
    }),
  );
  Deno.exit(0);
}

const WORDS = [
  "account",
  "invoice",
  "user",
  "order",
  "payment",
  "report",
  "ticket",
  "project",
  "record",
  "message",
  "file",
  "image",
  "metric",
  "alert",
  "team",
  "schedule",
  "event",
  "note",
  "task",
  "document",
  "customer",
  "product",
  "shipment",
  "refund",
  "session",
  "token",
  "policy",
  "role",
]; // deno-fmt-ignore
const VERBS = ["get", "list", "create", "update", "delete", "search", "export", "archive"];

function bigRegistry(n: number): CapabilityRegistry {
  const registry = new CapabilityRegistry();
  for (let i = 0; i < n; i++) {
    const noun = WORDS[i % WORDS.length], verb = VERBS[(i >> 3) % VERBS.length];
    const other = WORDS[(i * 7 + 3) % WORDS.length];
    registry.register({
      name: `svc${i % 97}.${noun}_${verb}_${i}`,
      summary: `${verb} ${noun} items for the ${other} area (#${i})`,
      description: `Operation ${i}: ${verb}s ${noun} objects linked to a ${other}.`,
      searchTerms: [other, `${noun}${i % 13}`],
      input: t.fields({ id: t.str(), limit: t.ptr(t.int()) }),
      handler: () => ({}),
    });
  }
  return registry;
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** `timeMany`, sorted (the percentiles are read from it). */
async function timeSorted(n: number, fn: () => Promise<unknown> | unknown): Promise<number[]> {
  return (await timeMany(n, fn)).sort((a, b) => a - b);
}

async function connect(registry: CapabilityRegistry) {
  const server = createCapabilityServer({
    registry,
    resolver: () => ({ id: "bench" }),
    authorizer: allowAll(),
    limits: { maxConcurrentExecutions: 1 },
  });
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(ct);
  await client.listTools(); // as real clients do; it also caches the output-schema validators
  return { client, close: async () => (await client.close(), await server.close()) };
}

const N = 300;
const fmt = (x: number) => x.toFixed(2);
const ratio = (x: number) => (x < 0.1 ? x.toFixed(3) : x.toFixed(1));

// execute
const demo = await connect(demoRegistry(mcpKit));
for (let i = 0; i < 20; i++) {
  await demo.client.callTool({ name: "execute", arguments: { source: SOURCE } });
}
const sample = await demo.client.callTool({ name: "execute", arguments: { source: SOURCE } });
if (sample.isError) throw new Error(JSON.stringify(sample.content));
const exec = await timeSorted(
  N,
  () => demo.client.callTool({ name: "execute", arguments: { source: SOURCE } }),
);
await demo.close();
const predeclared = predeclaredOf(demoRegistry(mcpKit));
for (let i = 0; i < 20; i++) await run(SOURCE, { predeclared });
const base = await timeSorted(N, () => run(SOURCE, { predeclared }));

// search
const big = bigRegistry(10_000);
const searcher = await connect(big);
const QUERIES = [
  "invoice export",
  "user",
  "customer refund list",
  "records",
  "tok",
  "svc12.order_get_12",
  "archive shipment for team",
  "payment update",
  "nothing matches this",
  "report metric alert",
]; // deno-fmt-ignore
for (const q of QUERIES) await searcher.client.callTool({ name: "search_api", arguments: { query: q } });
let qi = 0;
const search = await timeSorted(
  N,
  () =>
    searcher.client.callTool({
      name: "search_api",
      arguments: { query: QUERIES[qi++ % QUERIES.length] },
    }),
);
await searcher.close();
const caps = big.enabled();
qi = 0;
const scan = await timeSorted(N, () => {
  const words = QUERIES[qi++ % QUERIES.length].toLowerCase().split(/\s+/);
  return caps.filter((c) =>
    words.every((w) => `${c.name} ${c.summary} ${c.description}`.toLowerCase().includes(w))
  ).slice(0, 20);
});
const coldT0 = performance.now();
const cold = await connect(bigRegistry(10_000));
await cold.client.callTool({ name: "search_api", arguments: { query: "invoice export" } });
const coldMs = performance.now() - coldT0;
await cold.close();

// memory: a runaway allocation with the interpreter's memory budgets switched off, so only the
// worker heap limit stands between it and the process; sampled RSS of this process.
const hogServer = createCapabilityServer({
  registry: demoRegistry(mcpKit),
  resolver: () => ({ id: "bench" }),
  authorizer: allowAll(),
  limits: {
    maxConcurrentExecutions: 1,
    maxAllocBytes: Infinity,
    maxValueBytes: 1e12,
    maxExecutionSteps: 1e15,
    maxExecutionMs: 4000,
    workerHeapMb: 64,
  },
});
const [hct, hst] = InMemoryTransport.createLinkedPair();
await hogServer.connect(hst);
const hogClient = new Client({ name: "bench", version: "1" });
await hogClient.connect(hct);
await hogClient.callTool({ name: "execute", arguments: { source: "def main():\n  return 1\n" } });
const idleRss = Deno.memoryUsage().rss;
let peakRss = idleRss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, Deno.memoryUsage().rss)), 25);
const hogT0 = performance.now();
const hog = await hogClient.callTool({
  name: "execute",
  arguments: {
    source: "def main():\n  x = [[i] * 64 for i in range(100000000)]\n  return len(x)\n",
  },
});
const hogMs = performance.now() - hogT0;
clearInterval(sampler);
const after = await hogClient.callTool({
  name: "execute",
  arguments: { source: "def main():\n  return 2\n" },
});
await hogClient.close();
await hogServer.close();
const hogText = (hog.content as { text: string }[])[0].text;
const mb = (x: number) => (x / (1 << 20)).toFixed(0);

const rows = [
  [
    "execute, 3 capability calls (in-memory SDK client, worker)",
    exec,
    "interpreter `run()` in process, same program",
    base,
  ],
  [
    "search_api, 10 000 capabilities (in-memory SDK client)",
    search,
    "linear substring scan of the same 10 000",
    scan,
  ],
] as const; // deno-fmt-ignore
const lines = [
  "## mcp-server",
  "",
  `Measured ${new Date().toISOString().slice(0, 16)}Z by \`deno run -A tests/bench/mcp_server/run.ts\`, Deno ${Deno.version.deno}, ` +
  `load average ${Deno.loadavg().map((x) => x.toFixed(2)).join(" ")} at the end (shared 2-core machine). ${N} calls each after warm-up, one at a time.`,
  "",
  "| measure | p50 ms | p99 ms | baseline | baseline p50 ms | baseline p99 ms | ratio p50 |",
  "| --- | --: | --: | --- | --: | --: | --: |",
  ...rows.map(([what, xs, bname, bs]) =>
    `| ${what} | ${fmt(pct(xs, 50))} | ${fmt(pct(xs, 99))} | ${bname} | ${fmt(pct(bs, 50))} | ${fmt(pct(bs, 99))} | ${ratio(pct(xs, 50) / pct(bs, 50))}× |`
  ),
  "",
  `Runaway allocation with the interpreter's memory budgets off and a 64 MiB worker heap: answered \`${hogText}\` after ${hogMs.toFixed(0)} ms; ` +
    `process RSS ${mb(idleRss)} MiB before, peak ${mb(peakRss)} MiB (${(peakRss / idleRss).toFixed(2)}× idle); the next call answered ${after.isError ? "an error" : "normally"}.`,
  `Building the 10 000-capability registry, connecting and answering the first search (index build): ${coldMs.toFixed(0)} ms.`,
  "The execute figure includes the MCP round trip, zod validation, the worker message hop and three",
  "synchronous reply-channel round trips; the baseline has none of them.",
  "",
]; // deno-fmt-ignore
const section = lines.join("\n");
console.log(section);
if (cli.write) {
  const path = new URL("../RESULTS.md", import.meta.url);
  const text = await Deno.readTextFile(path);
  const start = text.indexOf("## mcp-server");
  let next = start < 0 ? -1 : text.indexOf("\n## ", start + 1);
  if (next >= 0) next += 1;
  const updated = start < 0
    ? `${text.trimEnd()}\n\n${section}`
    : `${text.slice(0, start)}${section}${next >= 0 ? `\n${text.slice(next)}` : ""}`;
  await Deno.writeTextFile(path, updated.trimEnd() + "\n");
  await new Deno.Command(Deno.execPath(), { args: ["fmt", "-q", path.pathname] }).output();
}
Deno.exit(0);
