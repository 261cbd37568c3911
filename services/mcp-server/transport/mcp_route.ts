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

/** The status logged for a request whose client went away (nginx's 499; never delivered). */
const CLIENT_CLOSED_REQUEST = 499;

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
    // execute ends as `context canceled` and its worker is freed, as Go's request context does),
    // and end the request at once: the SDK's transport never settles a request whose server was
    // closed, and a request left open holds a graceful shutdown for its whole grace period.
    let disconnected = () => {};
    const gone = new Promise<Response>((resolve) => {
      disconnected = () => {
        void server.close().catch(() => {});
        resolve(new Response(null, { status: CLIENT_CLOSED_REQUEST }));
      };
    });
    // It may have left while its token was verified or its body read, before this listener.
    if (req.signal.aborted) disconnected();
    else req.signal.addEventListener("abort", disconnected, { once: true });
    try {
      if (req.signal.aborted) return await gone;
      return await Promise.race([
        transport.handleRequest(req, { authInfo: auth, parsedBody }),
        gone,
      ]);
    } finally {
      req.signal.removeEventListener("abort", disconnected);
      await server.close();
    }
  };
}
