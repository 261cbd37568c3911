// Exports one counter to the collector URL in argv[0] and exits: loaded in a subprocess with
// the permissions a service would have, and compiled by `deno compile` in the tests.
import { createOtlpMetrics } from "../otlp_metrics.ts";

const metrics = createOtlpMetrics({
  url: Deno.args[0],
  serviceName: "entry",
  serviceVersion: "0.0.1",
});
metrics.meter.createCounter("entry.runs", { unit: "{run}" }).add(1, { outcome: "ok" });
await metrics.shutdown();
