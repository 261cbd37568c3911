/**
 * todo-api entry: `main.ts serve | migrate up|down|status | keys create|list|revoke`.
 * @module
 */
import { runCli } from "./cli/run.ts";
import { processIo } from "./cli/io.ts";

if (import.meta.main) {
  const code = await runCli(Deno.args, { env: (name) => Deno.env.get(name), io: processIo() });
  Deno.exit(code);
}
