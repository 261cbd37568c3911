/**
 * `@modelcontextprotocol/server-everything` (the MCP project's reference server, from npm) served
 * over stateless Streamable HTTP on loopback for the `--mcp` end-to-end test: its own server
 * factory, one server per request (its bundled express transport listens on every interface).
 * Prints `listening <url>` on stdout.
 */
// deno-lint-ignore-file no-console -- a test harness process talks to its parent on stdout
import { createServer } from "@modelcontextprotocol/server-everything/dist/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";

const http = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`listening http://127.0.0.1:${port}/mcp`),
}, async (req) => {
  if (req.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST" } });
  const { server, cleanup } = createServer();
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(req);
  } finally {
    cleanup?.();
  }
});
await http.finished;
