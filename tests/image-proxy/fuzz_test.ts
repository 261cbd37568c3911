/**
 * Seeded raw-socket fuzz of the real proxy process (its deployed permissions, narrowed to its
 * loopback addresses as the other end-to-end tests run it): malformed and aborted requests of
 * every kind, HTTP/2 with prior knowledge among them, never answer 5xx and never end the
 * process. Replay a failure with `FUZZ_SEED=<n>`. (`/readyz` is no target: its 503 while storage
 * is slow is the spec's answer, not a failure.)
 */
import assert from "node:assert/strict";
import { type FuzzReport, runFuzz } from "@svc/testing";
import { startProxyProcess, startStore } from "./_test_support.ts";

Deno.test({
  name: "fuzzed raw requests: never a 5xx, /healthz after every batch, the process lives",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const store = await startStore();
    const proxy = await startProxyProcess({ endpoint: store.s3.endpoint });
    let report: FuzzReport;
    let code: number;
    try {
      report = await runFuzz({
        url: proxy.url,
        // Most cases wait on a kept-alive or stalled connection until the read bound: 16 at a
        // time (not the default 6) cuts the wait, the cases and their seed stay the same.
        concurrency: 16,
        targets: [
          { method: "GET", path: "/streams/v1/index.json" },
          { method: "HEAD", path: "/streams/v1/index.json" },
          { method: "GET", path: "/streams/v1/images.json", headers: { Range: "bytes=0-99" } },
          { method: "POST", path: "/streams/v1/index.json", body: "{}" },
        ],
        exited: proxy.exited,
      });
    } finally {
      code = await proxy.stop();
      await store.close();
    }
    const tail = proxy.output().split("\n").filter((l) => !l.includes('"level":"debug"'))
      .join("\n").slice(-3000);
    assert.deepEqual(report.failures, [], tail);
    assert.equal(report.sent, 300);
    // The corpus reached the handler: objects, refusals and parse errors all came back.
    for (const status of ["200", "400", "405"]) {
      assert.ok(report.statuses[status] > 0, `no ${status}: ${JSON.stringify(report.statuses)}`);
    }
    assert.equal(code, 0, tail);
    // The process guard would keep the proxy alive through a bug: none may have been reported.
    assert.doesNotMatch(proxy.output(), /unhandled rejection|uncaught exception/, tail);
  },
});
