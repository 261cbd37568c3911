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
import { demoRegistry, predeclaredOf, SOURCE, timeMany } from "./demo.ts";

const root = Deno.args[0]?.replace(/\/+$/, "");
if (!root) throw new Error("usage: execute_rounds.ts <tree root>");
const mcp = await import(`${root}/services/mcp-server/mod.ts`);
const { run } = await import(`${root}/starlark/mod.ts`);

const server = mcp.createCapabilityServer({
  registry: demoRegistry(mcp),
  resolver: () => ({ id: "bench" }),
  authorizer: mcp.allowAll(),
  limits: { maxConcurrentExecutions: 1 },
});
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
const client = new Client({ name: "bench", version: "1" });
await client.connect(clientSide);
await client.listTools();

const predeclared = predeclaredOf(demoRegistry(mcp));

const first = await client.callTool({ name: "execute", arguments: { source: SOURCE } });
if (first.isError) throw new Error(JSON.stringify(first.content));

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
