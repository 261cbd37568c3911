/**
 * Seeded raw-socket fuzz of the real mock-oidc process with its deployed permissions
 * (`deploy/services.ts`): malformed and aborted requests of every kind, HTTP/2 with prior
 * knowledge among them, aimed at the token endpoint, the control plane (mint, scenarios, the
 * streamed capture listing, the long-polling take and change feed) and unknown paths, never
 * answer 5xx and never end the process. Replay a failure with `FUZZ_SEED=<n>`.
 */
import assert from "node:assert/strict";
import { type FuzzReport, runFuzz } from "@svc/testing";
import { startMock } from "./_test_support.ts";

const FORM = { "Content-Type": "application/x-www-form-urlencoded" };
const JSON_TYPE = { "Content-Type": "application/json" };

Deno.test({
  name: "fuzzed raw requests: never a 5xx, /healthz after every batch, the process lives",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const mock = await startMock({ args: ["--read-timeout", "1s", "--request-timeout", "5s"] });
    let report: FuzzReport;
    let code: number;
    try {
      report = await runFuzz({
        url: mock.url,
        // Most cases wait on a kept-alive or stalled connection until the read bound: 16 at a
        // time (not the default 6) cuts the wait, the cases and their seed stay the same.
        concurrency: 16,
        targets: [
          {
            method: "POST",
            path: "/default/token",
            headers: FORM,
            body: "grant_type=client_credentials&client_id=fuzz&scope=api",
          },
          { method: "POST", path: "/default/introspect", headers: FORM, body: "token=x" },
          { method: "GET", path: "/default/jwks" },
          { method: "POST", path: "/_mock/mint", headers: JSON_TYPE, body: '{"sub":"fuzz"}' },
          {
            method: "POST",
            path: "/_mock/scenarios",
            headers: JSON_TYPE,
            body: '{"endpoint":"token","status":400}',
          },
          // The streamed capture listing, and the change feed's long poll, often cut short.
          { method: "GET", path: "/_mock/requests" },
          { method: "GET", path: "/_mock/requests/changes?after=0&timeoutMs=300" },
          {
            method: "POST",
            path: "/_mock/requests/take",
            headers: JSON_TYPE,
            body: '{"endpoint":"token","timeoutMs":200}',
          },
        ],
        exited: mock.exited,
      });
    } finally {
      code = await mock.stop();
    }
    const tail = mock.output().slice(-3000);
    assert.deepEqual(report.failures, [], tail);
    assert.equal(report.sent, 300);
    for (const status of ["200", "400"]) {
      assert.ok(report.statuses[status] > 0, `no ${status}: ${JSON.stringify(report.statuses)}`);
    }
    assert.equal(code, 0, tail);
    assert.doesNotMatch(mock.output(), /unhandled rejection|uncaught exception/, tail);
  },
});
