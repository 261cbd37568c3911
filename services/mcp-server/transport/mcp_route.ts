/**
 * `POST /mcp` once its request is authorized: a fresh MCP server and Streamable HTTP transport
 * per request over what the tools share. A module of its own because it holds everything of the
 * MCP SDK, zod and ajv the server needs: `http_app.ts` loads it when the first `/mcp` request
 * comes (or right after listening), so the health routes answer before it is loaded.
 *
 * @module
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { type CapabilityServerOptions, createServerFactory } from "../tools/server.ts";
import type { ExecutePool } from "../execute/pool.ts";

/** Answers one authorized `/mcp` request with its parsed JSON body. */
export type McpRoute = (req: Request, auth: AuthInfo, parsedBody: unknown) => Promise<Response>;

/** Builds the shared tool state once and returns the handler of authorized requests. */
export function createMcpRoute(options: CapabilityServerOptions & { pool: ExecutePool }): McpRoute {
  const newServer = createServerFactory(options);
  return async (req, auth, parsedBody) => {
    const server = newServer();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    // The client went away: close the server, which aborts its in-flight tool calls (a running
    // execute ends as `context canceled` and its worker is freed, as Go's request context does).
    const disconnected = () => void server.close().catch(() => {});
    req.signal.addEventListener("abort", disconnected, { once: true });
    try {
      return await transport.handleRequest(req, { authInfo: auth, parsedBody });
    } finally {
      req.signal.removeEventListener("abort", disconnected);
      await server.close();
    }
  };
}
