// A minimal service for process_test.ts: two listeners, /healthz, graceful stop.
import { startServer } from "@svc/shared/server";
import { createLogger } from "@svc/shared/log";
import { healthHandler } from "@svc/shared/health";

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
