/**
 * Writes buffered log lines, then ends as `Deno.args[0]` says: `exit` (Deno.exit), `throw` (an
 * uncaught error), `reject` (an unhandled rejection) or `end` (the program runs out of work).
 * The log test checks that every line reached stdout anyway.
 */
import { createLogger } from "../log.ts";

const logger = createLogger();
for (let i = 0; i < 3; i++) logger.info("line", { i });
const how = Deno.args[0];
if (how === "exit") Deno.exit(3);
if (how === "throw") {
  setTimeout(() => {
    throw new Error("boom");
  }, 0);
}
if (how === "reject") void Promise.reject(new Error("boom"));
