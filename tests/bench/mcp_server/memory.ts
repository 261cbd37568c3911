// deno-lint-ignore-file no-console -- a benchmark reports on the console
/**
 * `deno run -A tests/bench/mcp_server/memory.ts [--executes N] [--searches N] [--concurrency C]
 * [--rest S] [--v8 FLAGS|none] [--mcp-upstream] [-- server flags...]`: the memory of a real mcp-server process (deployed permissions,
 * Streamable HTTP, mock-oidc bearer tokens) under sustained load. Two fresh servers: one answers
 * only `search_api` calls, the other only `execute` calls (a comprehension plus one capability
 * call each), `C` requests in flight at all times. The process's RSS (`/proc/<pid>/status`
 * VmRSS, sampled every 50 ms, and VmHWM) is reported at idle, after the first 1 000 calls, at the
 * end, at its peak and after `S` seconds of rest, against the bound the README states
 * (`memoryBound` of the server's limits). Prints a Markdown block for RESULTS.md. The server runs
 * with the V8 flags of `deploy/services.ts` unless `--v8` names others (comma-separated) or `none`;
 * with `MCP_BENCH_SERVER_LOG=path` its output (e.g. `--v8 …,--trace-gc`) goes to `path.<tool>`.
 * With `--mcp-upstream` the server also has an `--mcp` upstream (an MCP server over Streamable HTTP
 * in this process) and each execute also calls its tool, whose answer is 16 KiB of text; the
 * bound is then the one with that upstream.
 * @module
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { z } from "zod";
import { startHttpStack, V8_FLAGS } from "../../mcp-server/_test_support.ts";
import { memoryBound, upstreamSourcesOf } from "../../../services/mcp-server/memory_bound.ts";
import { DEFAULT_LIMITS } from "../../../services/mcp-server/limits.ts";
import { SETTINGS } from "../../../services/mcp-server/settings.ts";

function flag(name: string, fallback: number): number {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : fallback;
}
const EXECUTES = flag("executes", 10_000);
const SEARCHES = flag("searches", 3_000);
const CONCURRENCY = flag("concurrency", 300);
const REST_S = flag("rest", 30);
// `--v8 a,b` runs the server with these V8 flags instead of the deployed ones (`--v8 none`: V8's
// defaults), to compare.
const v8At = Deno.args.indexOf("--v8");
const V8: readonly string[] = v8At < 0
  ? V8_FLAGS
  : Deno.args[v8At + 1] === "none"
  ? []
  : Deno.args[v8At + 1].split(",");
const dash = Deno.args.indexOf("--");
const MCP_UPSTREAM = Deno.args.slice(0, dash >= 0 ? dash : undefined).includes("--mcp-upstream");

/** A stateless MCP server on loopback with one tool, `pad(n)`: n characters of text. */
function startUpstream(): { url: string; stop(): Promise<void> } {
  const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    if (req.method !== "POST") return new Response(null, { status: 405 });
    const server = new McpServer({ name: "bench-upstream", version: "1" });
    server.registerTool(
      "pad",
      { inputSchema: { n: z.number().int() } },
      ({ n }: { n: number }) => ({ content: [{ type: "text", text: "p".repeat(n) }] }),
    );
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    return await transport.handleRequest(req);
  });
  return { url: `http://127.0.0.1:${http.addr.port}/mcp`, stop: () => http.shutdown() };
}
const upstream = MCP_UPSTREAM ? startUpstream() : undefined;
const SERVER_ARGS = [
  ...(dash >= 0 ? Deno.args.slice(dash + 1) : []),
  ...(upstream ? ["--mcp", `up=${upstream.url}`] : []),
];

const MiB = 1 << 20;
const mib = (bytes: number) => (bytes / MiB).toFixed(0);

/** VmRSS and VmHWM of a process, bytes. */
function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)![1]);
  return { rss: kb("VmRSS") * 1024, hwm: kb("VmHWM") * 1024 };
}

const EXECUTE_SOURCE = `def main():
  n = time.now()
  squares = [i * i for i in range(200)]${
  MCP_UPSTREAM ? '\n  padded = len(up.pad(n=16384)["text"])' : "\n  padded = 0"
}
  return {"sum": sum(squares), "odd": len([s for s in squares if s % 2]), "t": n["unix_ms"] > 0,
          "padded": padded}
`;
const QUERIES = ["todos list", "record", "time", "create a todo", "get records by key", "nothing"];

interface Run {
  name: string;
  calls: number;
  ok: number;
  errors: Map<string, number>;
  idle: number;
  afterFirst1000: number;
  end: number;
  peak: number;
  hwm: number;
  rest: number;
  seconds: number;
  /** RSS after every 1 000 calls. */
  series: number[];
}

async function load(
  tool: "execute" | "search_api",
  calls: number,
): Promise<Run> {
  const stack = await startHttpStack(SERVER_ARGS, V8);
  const pid = stack.server.pid;
  try {
    const token = await stack.token("bench-memory");
    const body = (id: number) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: {
          name: tool,
          arguments: tool === "execute"
            ? { source: EXECUTE_SOURCE }
            : { query: QUERIES[id % QUERIES.length] },
        },
      });
    const call = async (id: number): Promise<string> => {
      const res = await fetch(stack.mcpUrl, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-06-18",
        },
        body: body(id),
      });
      const text = await res.text();
      if (res.status !== 200) return `HTTP ${res.status}`;
      const result = JSON.parse(text).result;
      return result?.isError ? result.content[0].text : "ok";
    };
    // settle after start, then idle is the process with its modules loaded and no call served
    await new Promise((r) => setTimeout(r, 2000));
    const idle = memoryOf(pid).rss;
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, memoryOf(pid).rss)), 50);
    const errors = new Map<string, number>();
    let ok = 0, next = 0, done = 0, afterFirst1000 = 0;
    const series: number[] = [];
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: Math.min(CONCURRENCY, calls) }, async () => {
        while (next < calls) {
          const outcome = await call(next++);
          if (outcome === "ok") ok++;
          else errors.set(outcome, (errors.get(outcome) ?? 0) + 1);
          if (++done % 1000 === 0) series.push(memoryOf(pid).rss);
          if (done === 1000) afterFirst1000 = series[0];
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const end = memoryOf(pid).rss;
    await new Promise((r) => setTimeout(r, REST_S * 1000));
    clearInterval(sampler);
    const { rss: rest, hwm } = memoryOf(pid);
    // with `--v8 …,--trace-gc`, the collections of every isolate (main thread and workers)
    const log = Deno.env.get("MCP_BENCH_SERVER_LOG");
    if (log) await Deno.writeTextFile(`${log}.${tool}`, stack.server.output());
    return {
      name: tool,
      calls,
      ok,
      errors,
      idle,
      afterFirst1000,
      end,
      peak: Math.max(peak, end),
      hwm,
      rest,
      seconds,
      series,
    };
  } finally {
    await stack.stop();
  }
}

const runs: Run[] = [];
if (SEARCHES > 0) runs.push(await load("search_api", SEARCHES));
if (EXECUTES > 0) runs.push(await load("execute", EXECUTES));

await upstream?.stop();
const bound = memoryBound(
  DEFAULT_LIMITS,
  upstreamSourcesOf(SETTINGS.resolve({ args: SERVER_ARGS, env: () => undefined }).values),
);
const heap = DEFAULT_LIMITS.workerHeapMb * MiB;
const lines = [
  `Run ${new Date().toISOString().slice(0, 16)}Z, \`deno run -A tests/bench/mcp_server/memory.ts` +
  `${
    Deno.args.length ? " " + Deno.args.join(" ") : ""
  }\`, Deno ${Deno.version.deno}, ${CONCURRENCY} requests in flight, ` +
  `load average ${Deno.loadavg().map((x) => x.toFixed(1)).join(" ")} at the end.${
    upstream ? " With an --mcp upstream (each execute calls it: 16 KiB of text)." : ""
  } Server V8 flags: ${V8.length ? V8.join(" ") : "none"}. ` +
  `Stated bound (README, defaults${upstream ? ", one --mcp server" : ""}): ${
    mib(bound.total)
  } MiB.`,
  "",
  "| run | calls (ok) | s | idle | after 1 000 | end | peak (VmHWM) | after " + REST_S +
  " s rest | peak ≤ bound | end − after 1 000 ≤ 64 | rest ≤ 1.5× idle + heap |",
  "| --- | --: | --: | --: | --: | --: | --: | --: | --- | --- | --- |",
  ...runs.map((r) =>
    `| ${r.name} | ${r.calls} (${r.ok}${
      r.errors.size ? `; ${[...r.errors].map(([k, v]) => `${v}× ${k}`).join(", ")}` : ""
    }) | ` +
    `${r.seconds.toFixed(0)} | ${mib(r.idle)} | ${mib(r.afterFirst1000)} | ${mib(r.end)} | ${
      mib(r.peak)
    } (${mib(r.hwm)}) | ${mib(r.rest)} | ` +
    `${r.hwm <= bound.total ? "yes" : "NO"} | ${
      r.end - r.afterFirst1000 <= 64 * MiB ? "yes" : "NO"
    } (${mib(r.end - r.afterFirst1000)}) | ` +
    `${r.rest <= 1.5 * r.idle + heap ? "yes" : "NO"} (${mib(1.5 * r.idle + heap)}) |`
  ),
  "",
  "RSS in MiB. After every 1 000 calls:",
  "",
  ...runs.map((r) => `- ${r.name}: ${r.series.map(mib).join(", ")}`),
]; // deno-fmt-ignore
console.log(lines.join("\n"));
Deno.exit(0);
