/** In-memory MCP client/server pairs for the tool tests. @module */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CapabilityRegistry } from "../capabilities/registry.ts";
import { t } from "../capabilities/schema.ts";
import { allowAll } from "../auth/authorizer.ts";
import { type CapabilityServerOptions, createCapabilityServer } from "./server.ts";

/** A connected client plus a way to close both ends. */
export interface Connected {
  client: Client;
  call(tool: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** Connects an SDK client to a capability server over the in-memory transport. */
export async function connect(options: Partial<CapabilityServerOptions> = {}): Promise<Connected> {
  const server = createCapabilityServer({
    registry: options.registry ?? new CapabilityRegistry(),
    resolver: options.resolver ?? (() => ({ id: "tester" })),
    authorizer: options.authorizer ?? allowAll(),
    ...options,
  });
  const [clientT, serverT] = InMemoryTransport.createLinkedPair();
  await server.connect(serverT);
  const client = new Client({ name: "test-client", version: "1.0.0" });
  await client.connect(clientT);
  await client.listTools(); // caches output schemas so the client validates structured content
  return {
    client,
    call: async (name, args) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** The text of an isError result (asserting there is no structured content). */
export function errorOf(result: CallToolResult): string {
  if (!result.isError) throw new Error(`expected an error, got ${JSON.stringify(result)}`);
  if (result.structuredContent !== undefined) throw new Error("error carries structuredContent");
  const [item] = result.content;
  if (result.content.length !== 1 || item.type !== "text") throw new Error("want one text item");
  return item.text;
}

/** The structured content of a success (asserting the text mirror matches it). */
export function valueOf(result: CallToolResult): Record<string, unknown> {
  if (result.isError) throw new Error(`unexpected error: ${JSON.stringify(result.content)}`);
  const [item] = result.content;
  if (result.content.length !== 1 || item.type !== "text") throw new Error("want one text item");
  if (JSON.stringify(JSON.parse(item.text)) !== JSON.stringify(result.structuredContent)) {
    throw new Error("text mirror differs from structuredContent");
  }
  return result.structuredContent as Record<string, unknown>;
}

/** A small registry used by several tests. */
export function sampleRegistry(): CapabilityRegistry {
  const registry = new CapabilityRegistry();
  const store = new Map<string, string>([["a", "alpha"], ["b", "beta"]]);
  registry.register({
    name: "records.lookup",
    summary: "Look up a record by key",
    description: "Returns the stored value of one record, or None when absent.",
    searchTerms: ["get", "fetch"],
    input: t.fields({ key: t.str() }),
    output: t.fields({ value: t.ptr(t.str()) }),
    handler: ({ key }) => ({ value: store.get(key as string) ?? null }),
  });
  registry.register({
    name: "records.list",
    summary: "List record keys",
    input: t.fields({ prefix: t.ptr(t.str()), limit: t.ptr(t.int()) }),
    output: t.fields({ keys: t.list(t.str()) }),
    handler: ({ prefix, limit }) => ({
      keys: [...store.keys()].filter((k) => k.startsWith((prefix as string) ?? "")).slice(
        0,
        (limit as number) ?? 100,
      ),
    }),
  });
  registry.register({
    name: "time.now",
    summary: "Current time",
    output: t.fields({ unix_ms: t.int() }),
    handler: () => ({ unix_ms: 1_700_000_000_000 }),
  });
  return registry;
}
