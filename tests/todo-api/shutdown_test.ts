/**
 * End-to-end: SIGTERM while keep-alive clients keep sending to the real `main.ts serve`. Every
 * client gets its answers and then one `Connection: close` (a 503 once accepting has stopped),
 * never a reset or a connection closed without an answer, and the process exits 0. Both paces
 * run on one database and key, one serve process each (the clients only read). The process runs
 * as shipped (tests/_shipped.ts), its PGlite directory under `./.data`.
 */
import assert from "node:assert/strict";
import { startKeepAliveClients, waitUntil } from "@svc/testing";
import { LISTEN, migratedTarget, run, startServe } from "./_test_support.ts";

Deno.test({
  name: "SIGTERM answers keep-alive clients with 503 + Connection: close, never a reset [pglite]",
  sanitizeResources: false,
  async fn(t) {
    const db = await migratedTarget("pglite");
    try {
      const created = await run(["keys", "create", "--subject", "ka", "--role", "user"], db.env);
      assert.equal(created.code, 0, created.stderr);
      const key = created.stdout.trim();
      for (const paceMs of [0, 30]) {
        await t.step(paceMs ? "clients pacing their requests" : "clients hammering", async () => {
          const svc = await startServe(LISTEN, db.env);
          const clients = startKeepAliveClients(svc.url, {
            clients: 12,
            paceMs,
            path: "/v1/todos?limit=5",
            headers: [`X-API-Key: ${key}`],
          });
          await waitUntil(() => clients.answered() >= 48, { what: "48 answered requests" });
          assert.equal(await svc.stop("SIGTERM"), 0, svc.output());
          const records = await clients.ended;
          for (const [i, record] of records.entries()) {
            assert.equal(record.failure, undefined, `client ${i}`);
            assert.ok(record.answers.every((a) => a.status === 200 || a.status === 503));
            assert.equal(record.answers.at(-1)?.close, true, `client ${i} was told to close`);
          }
        });
      }
    } finally {
      await db.cleanup();
    }
  },
});
