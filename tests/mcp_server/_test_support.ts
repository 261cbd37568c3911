/**
 * Helpers for the mcp-server end-to-end tests: the deployed permissions and the real SDK client
 * over stdio.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { SERVICES } from "../../deploy/services.ts";

/** The permissions mcp-server is deployed with (`deploy/services.ts`). */
export const PERMISSIONS: readonly string[] = SERVICES.find((s) => s.name === "mcp-server")!
  .permissions;

/** Path of the service entry point. */
export const MAIN = new URL("../../services/mcp-server/main.ts", import.meta.url).pathname;

/** Repository root (the service runs from there, as `deno task dev` runs it). */
export const ROOT = new URL("../../", import.meta.url).pathname;

/** A connected SDK client. */
export interface Session {
  client: Client;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** Starts mcp-server over stdio as a real process and connects the SDK client to it. */
export async function startStdio(
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<Session> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", ...PERMISSIONS, MAIN, "--transport", "stdio", ...args],
    cwd: ROOT,
    env: { PATH: Deno.env.get("PATH") ?? "", NO_COLOR: "1", ...env },
    stderr: "pipe",
  });
  const client = new Client({ name: "e2e", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  return {
    client,
    call: async (name, args) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: () => client.close(),
  };
}
