/**
 * The benchmark's HTTP floor: the least a server can do for the API's create and first-page list
 * — `Deno.serve` and postgres.js running the same statements, with no authentication,
 * validation, cursor, access log, metrics or problem bodies. todo-api / floor is what the
 * service's own work costs; floor / raw SQL is what HTTP itself costs on this machine.
 *
 *   deno run -A tests/bench/todo_api/floor_server.ts <database-url> <pool>
 *
 * Announces itself with the services' `server_listening` line, so `startService` can wait for it.
 */
import postgres from "postgres";
import { floorHandler } from "./statements.ts";

const [url, pool] = Deno.args;
const sql = postgres(url, {
  max: Number(pool),
  onnotice: () => {},
  connection: { plan_cache_mode: "force_generic_plan" },
});
Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => {
    const line = { msg: "server_listening", listener: "api", url: `http://127.0.0.1:${port}` };
    Deno.stdout.writeSync(new TextEncoder().encode(JSON.stringify(line) + "\n"));
  },
}, floorHandler((text, params) => sql.unsafe(text, params as never[], { prepare: true })));
// Exit through Deno.exit, so that `--cpu-prof` writes its profile (cpu.ts --profile).
Deno.addSignalListener("SIGINT", () => Deno.exit(0));
