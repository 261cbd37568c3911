/**
 * A service entry point whose work after a "response" goes wrong: an unhandled rejection tagged
 * with a request id, one without, and an exception thrown in a timer. Run through `runMain`, the
 * guard logs each once and the program goes on to write `after` and exit 0; `Deno.args[0] ===
 * "bare"` runs the same without `runMain` (no guard), which must end the process.
 */
import { createLogger } from "../../observe/log.ts";
import { createLifecycle, uncaughtCounts } from "../mod.ts";
import { runMain } from "../main.ts";
import { createMetrics } from "../../observe/metrics.ts";

async function main(): Promise<number> {
  const logger = createLogger({ fields: { component: "guarded" } });
  const lifecycle = createLifecycle({ logger, handleSignals: false });
  logger.info("before");
  void Promise.reject(Object.assign(new TypeError("Request closed"), { requestId: "req-7" }));
  void Promise.reject(new Error("secret-free? never logged"));
  setTimeout(() => {
    throw new RangeError("thrown in a timer");
  }, 0);
  // Wait for the three reports (each event runs after the current task).
  while (uncaughtCounts().rejections + uncaughtCounts().exceptions < 3) {
    await new Promise((r) => setTimeout(r, 1));
  }
  const text = await createMetrics({ service: "guarded" }).registry.metrics();
  logger.info("after", {
    metrics: text.split("\n").filter((l) => l.startsWith("process_")),
  });
  lifecycle.close();
  return 0;
}

if (Deno.args[0] === "bare") await main();
else await runMain(main, { name: "guarded" });
