/**
 * The HTTP floor's handler served through the kit instead of a bare `Deno.serve`, to show what
 * the kit's own layers cost before any of todo-api's work (`layers.ts` runs it):
 *
 *   deno run -A tests/bench/todo_api/floor_kit.ts <database-url> <pool> server|router|stack
 *
 * `server`: the kit's `startServer` (drain tracking, shutdown) around the floor's handler;
 * `router`: also the kit's route table (one URL parse, method and pattern match);
 * `stack`: also the kit's default stack as every service has it (request id, target check,
 * metrics, access log to stdout, error boundary, request timeout).
 * Announces itself with the kit's `server_listening` line.
 */
import postgres from "postgres";
import { floorHandler } from "./statements.ts";
import { startServer } from "@svc/shared/server";
import { createLogger } from "@svc/shared/log";
import { createLifecycle } from "@svc/shared/lifecycle";
import { createMetrics } from "@svc/shared/metrics";
import { createRouter, type Handler, withDefaultStack } from "@svc/shared/http";

const [url, pool, layers] = Deno.args;
const sql = postgres(url, {
  max: Number(pool),
  onnotice: () => {},
  connection: { plan_cache_mode: "force_generic_plan" },
});
const floor = floorHandler((text, params) =>
  sql.unsafe(text, params as never[], { prepare: true })
);
const logger = createLogger();
const lifecycle = createLifecycle({ logger, handleSignals: true });
const router = createRouter([
  { method: "POST", pattern: "/v1/todos", handler: (req) => floor(req) },
  { method: "GET", pattern: "/v1/todos", handler: (req) => floor(req) },
]);
const handlers: Record<string, Handler> = {
  server: floor,
  router: router.handler,
  stack: withDefaultStack(router, { logger, metrics: createMetrics({ service: "floor" }) }),
};
if (!handlers[layers]) throw new Error(`Cannot serve: layers must be one of server, router, stack`);
const server = await startServer(
  [{ name: "api", addr: "127.0.0.1:0", handler: handlers[layers] }],
  { logger, lifecycle },
);
await server.finished; // SIGINT or SIGTERM: the kit's graceful stop
await sql.end({ timeout: 1 });
Deno.exit(0);
