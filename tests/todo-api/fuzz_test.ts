/**
 * Seeded raw-socket fuzz of the real todo-api process with its deployed permissions
 * (`deploy/services.ts`, run from the repository root with the embedded database under
 * `./.data`, the only place that grant lets it write): malformed and aborted requests of every
 * kind, HTTP/2 with prior knowledge among them, aimed at todo create and complete, the list and
 * unknown paths, never answer 5xx and never end the process. Replay a failure with
 * `FUZZ_SEED=<n>`.
 */
import assert from "node:assert/strict";
import { type FuzzReport, runFuzz } from "@svc/testing";
import { LISTEN, migratedTarget, run, startServe } from "./_test_support.ts";

const ID = "00000000-0000-4000-8000-000000000000";

Deno.test({
  name: "fuzzed raw requests: never a 5xx, /healthz after every batch, the process lives",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // A migrated copy under ./.data (`migrate up` with this grant is shipped_test.ts's subject).
    const scratch = await migratedTarget("pglite");
    const env = scratch.env;
    try {
      const created = await run(["keys", "create", "--subject", "fuzz", "--role", "user"], env);
      assert.equal(created.code, 0, created.stderr);
      const key = created.stdout.trim();
      const svc = await startServe([...LISTEN, "--body-read-timeout", "1s"], env);
      let report: FuzzReport;
      let code: number;
      try {
        const auth = { "x-api-key": key };
        const json = { ...auth, "Content-Type": "application/json" };
        report = await runFuzz({
          url: svc.url,
          targets: [
            { method: "POST", path: "/v1/todos", headers: json, body: '{"title":"fuzz"}' },
            { method: "POST", path: "/v1/todos", body: '{"title":"no key"}' },
            { method: "POST", path: `/v1/todos/${ID}/complete`, headers: auth },
            { method: "GET", path: "/v1/todos?limit=5", headers: auth },
            { method: "PATCH", path: `/v1/todos/${ID}`, headers: json, body: '{"title":"x"}' },
          ],
          exited: svc.exited,
        });
      } finally {
        code = await svc.stop();
      }
      const tail = svc.output().slice(-3000);
      assert.deepEqual(report.failures, [], tail);
      assert.equal(report.sent, 300);
      for (const status of ["201", "400", "401"]) {
        assert.ok(report.statuses[status] > 0, `no ${status}: ${JSON.stringify(report.statuses)}`);
      }
      assert.equal(code, 0, tail);
      assert.doesNotMatch(svc.output(), /unhandled rejection|uncaught exception/, tail);
    } finally {
      await scratch.cleanup();
    }
  },
});
