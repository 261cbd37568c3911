// A minimal service for testing.ts: two listeners, /healthz, graceful stop.
import { startServer } from "../../shared/http/server.ts";
import { createLogger } from "../../shared/observe/log.ts";
import { healthHandler } from "../../shared/http/health.ts";

if (Deno.args.includes("--crash")) throw new Error("Cannot start: asked to crash");
const [api = "127.0.0.1:0", metrics = "127.0.0.1:0"] = Deno.args;
const server = await startServer([
  {
    name: "api",
    addr: api,
    handler: (req) =>
      new URL(req.url).pathname === "/healthz" ? healthHandler() : new Response("echo"),
  },
  { name: "metrics", addr: metrics, handler: () => new Response("m 1\n") },
], { logger: createLogger(), shutdownGrace: 1000 });
await server.finished;
