// deno-lint-ignore-file no-console -- a benchmark child reports on stdout
/**
 * Child process of `tests/bench/mcp_server/run.ts --before DIR`: the execute measurement of one
 * tree, in rounds the parent asks for. Run from the tree measured (its deno.json, lock and
 * node_modules), with that tree's root as the argument; it imports that tree's mcp-server and
 * interpreter by path, so the same driver measures the code before and after a change.
 *
 * Protocol: the parent writes a count per line on stdin; for each, the child makes that many
 * `execute` calls (in-memory SDK client, worker; the program of run.ts) one at a time, then the
 * same program that many times through the interpreter's `run()` in process, and writes one line
 * `ROUND {"execute": [ms…], "direct": [ms…]}`. An empty line or the end of stdin ends it.
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";

const root = Deno.args[0]?.replace(/\/+$/, "");
if (!root) throw new Error("usage: execute_rounds.ts <tree root>");
const mcp = await import(`${root}/services/mcp-server/mod.ts`);
const { run } = await import(`${root}/starlark/mod.ts`);
const { t } = mcp;

/** The program of run.ts: three capability calls. */
const SOURCE = `def main():
  a = records.get(key="k1")
  b = records.list(prefix="k", limit=5)
  n = time.now()
  return {"value": a["record"]["value"], "count": len(b["records"]), "ms": n["unix_ms"]}
`;

type Handler = (args: Record<string, unknown>, ctx: unknown) => unknown;

/** The registry of run.ts (`demoRegistry`), built with the measured tree's classes. */
function demoRegistry() {
  const registry = new mcp.CapabilityRegistry();
  const store = new Map([["k1", "v1"], ["k2", "v2"], ["k3", "v3"]]);
  const rec = t.struct({ key: t.str(), value: t.str() });
  registry.register({
    name: "records.get",
    summary: "Get a record",
    input: t.fields({ key: t.str() }),
    output: t.fields({ record: t.ptr(rec) }),
    handler: (({ key }) => ({
      record: store.has(key as string) ? { key, value: store.get(key as string) } : null,
    })) as Handler,
  });
  registry.register({
    name: "records.list",
    summary: "List records",
    input: t.fields({ prefix: t.ptr(t.str()), limit: t.ptr(t.int()) }),
    output: t.fields({ records: t.list(rec) }),
    handler: (({ prefix, limit }) => ({
      records: [...store].filter(([k]) => k.startsWith((prefix as string) ?? ""))
        .slice(0, (limit as number) ?? 100).map(([key, value]) => ({ key, value })),
    })) as Handler,
  });
  registry.register({
    name: "time.now",
    summary: "Now",
    output: t.fields({ unix_ms: t.int() }),
    handler: (() => ({ unix_ms: 1_700_000_000_000 })) as Handler,
  });
  return registry;
}

const server = mcp.createCapabilityServer({
  registry: demoRegistry(),
  resolver: () => ({ id: "bench" }),
  authorizer: mcp.allowAll(),
  limits: { maxConcurrentExecutions: 1 },
});
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
const client = new Client({ name: "bench", version: "1" });
await client.connect(clientSide);
await client.listTools();

const direct = demoRegistry();
const host = (name: string) => (_a: unknown[], kw: Record<string, unknown>) =>
  direct.get(name)!.handler(kw, { subject: { id: "b" }, signal: new AbortController().signal });
const predeclared = {
  records: { get: host("records.get"), list: host("records.list") },
  time: { now: host("time.now") },
};

const first = await client.callTool({ name: "execute", arguments: { source: SOURCE } });
if (first.isError) throw new Error(JSON.stringify(first.content));

async function timeMany(n: number, fn: () => Promise<unknown> | unknown): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

const decoder = new TextDecoder();
let pending = "";
reading: for await (const chunk of Deno.stdin.readable) {
  pending += decoder.decode(chunk, { stream: true });
  for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
    const line = pending.slice(0, nl).trim();
    pending = pending.slice(nl + 1);
    if (line === "") break reading;
    const n = Number(line);
    const execute = await timeMany(
      n,
      () => client.callTool({ name: "execute", arguments: { source: SOURCE } }),
    );
    const directMs = await timeMany(n, () => run(SOURCE, { predeclared }));
    console.log(`ROUND ${JSON.stringify({ execute, direct: directMs })}`);
  }
}
await client.close();
await server.close();
Deno.exit(0);
