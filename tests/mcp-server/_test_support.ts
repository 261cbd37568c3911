/**
 * Helpers for the mcp-server end-to-end tests: the deployed permissions and the real SDK client
 * over stdio.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type ServiceProcess, startService } from "@svc/testing";
import { SERVICES } from "../../deploy/services.ts";
import { startMock } from "../mock-oidc/_test_support.ts";

/** The permissions mcp-server is deployed with (`deploy/services.ts`). */
export const PERMISSIONS: readonly string[] = SERVICES.find((s) => s.name === "mcp-server")!
  .permissions;

/** The V8 flags mcp-server is deployed with (`deploy/services.ts`). */
export const V8_FLAGS: readonly string[] = SERVICES.find((s) => s.name === "mcp-server")!
  .v8Flags ?? [];

/** The deployed permissions, then `--v8-flags=…` for `v8Flags` when there are any. */
function deployedFlags(v8Flags: readonly string[] = V8_FLAGS): string[] {
  return [...PERMISSIONS, ...(v8Flags.length ? [`--v8-flags=${v8Flags.join(",")}`] : [])];
}

/** Path of the service entry point. */
export const MAIN = new URL("../../services/mcp-server/main.ts", import.meta.url).pathname;

/** Repository root (the service runs from there, as `deno task dev` runs it). */
export const ROOT = new URL("../../", import.meta.url).pathname;

/**
 * Runs mcp-server to completion with the deployed permissions (e.g. `--list-capabilities`), plus
 * `extraPermissions` (a grant the operator adds on purpose: `--allow-run=` for a stdio `--mcp`).
 */
export async function runMcp(
  args: string[],
  env: Record<string, string> = {},
  extraPermissions: readonly string[] = [],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMISSIONS, ...extraPermissions, MAIN, ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** A connected SDK client. */
export interface Session {
  client: Client;
  /** The server's stderr so far (over stdio; empty over HTTP). */
  stderr(): string;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/**
 * Starts mcp-server over stdio as a real process (deployed flags, plus `extraPermissions`) and
 * connects the SDK client to it.
 */
export async function startStdio(
  args: string[] = [],
  env: Record<string, string> = {},
  extraPermissions: readonly string[] = [],
): Promise<Session> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", ...deployedFlags(), ...extraPermissions, MAIN, "--transport", "stdio", ...args],
    cwd: ROOT,
    env: { PATH: Deno.env.get("PATH") ?? "", NO_COLOR: "1", ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  const client = new Client({ name: "e2e", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  return {
    client,
    stderr: () => stderr,
    call: async (name, args) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: () => client.close(),
  };
}

/**
 * Starts mock-oidc and mcp-server (http transport) as real processes, the server with the deployed
 * permissions and V8 flags (`v8Flags` replaces the latter: the memory benchmark compares).
 */
export async function startHttpStack(
  args: string[] = [],
  v8Flags: readonly string[] = V8_FLAGS,
): Promise<{
  issuer: string;
  mcpUrl: string;
  server: ServiceProcess;
  oidc: ServiceProcess;
  /** A client-credentials access token with scope `mcp` for `resource` (default: this server). */
  token(clientId: string, resource?: string): Promise<string>;
  stop(): Promise<void>;
}> {
  const oidc = await startMock();
  const issuer = `${oidc.url}/mcp-e2e`;
  let server: ServiceProcess;
  try {
    server = await startService({
      entry: MAIN,
      cwd: ROOT,
      args: [
        "--transport",
        "http",
        "--addr",
        "127.0.0.1:0",
        "--issuer",
        issuer,
        ...args,
      ],
      env: { NO_COLOR: "1" },
      permissions: deployedFlags(v8Flags),
      timeoutMs: 30_000,
    });
  } catch (err) {
    await oidc.stop();
    throw err;
  }
  return {
    issuer,
    mcpUrl: `${server.url}/mcp`,
    server,
    oidc,
    async token(clientId, resource = `${server.url}/mcp`) {
      // RFC 8707: the token's aud is the resource, the server's own name
      const res = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: clientId,
          scope: "mcp",
          resource,
        }),
      });
      if (!res.ok) throw new Error(`token request failed: ${res.status}`);
      return (await res.json()).access_token;
    },
    async stop() {
      await server.stop();
      await oidc.stop();
    },
  };
}

/** Connects the SDK client over Streamable HTTP with a bearer token. */
export async function connectHttp(url: string, token: string): Promise<Session> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "e2e-http", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  return {
    client,
    stderr: () => "",
    call: async (name, args) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: () => client.close(),
  };
}
