/**
 * The stdio transport: one MCP server on stdin/stdout (stdout is the JSON-RPC channel, so logs
 * go to stderr); every call runs as the configured subject. It ends when stdin ends or the client
 * closes the connection.
 * @module
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import process from "node:process";
import { type CapabilityServerOptions, createCapabilityServer } from "../tools/server.ts";

/** A running stdio server. */
export interface StdioServer {
  /** Resolves when the client has gone away (or {@linkcode StdioServer.close} was called). */
  finished: Promise<void>;
  /** Closes the MCP server. */
  close(): Promise<void>;
}

/** Serves MCP over this process's stdin/stdout until the client goes away. */
export async function serveStdio(
  options: Omit<CapabilityServerOptions, "resolver"> & { subject: string },
): Promise<StdioServer> {
  const { subject, ...rest } = options;
  const server = createCapabilityServer({ ...rest, resolver: () => ({ id: subject }) });
  const finished = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  process.stdin.on("end", () => void server.close());
  await server.connect(new StdioServerTransport());
  return { finished, close: () => server.close() };
}
