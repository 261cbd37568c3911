import assert from "node:assert/strict";
import { startServer } from "./server.ts";
import { silentLogger } from "../observe/log.ts";
import { type KeepAliveRecord, startKeepAliveClients, waitUntil } from "@svc/testing";

/** Every client was answered 2xx or 503 and told `Connection: close` once, last; none failed. */
function assertToldToClose(records: KeepAliveRecord[]): void {
  for (const [i, record] of records.entries()) {
    assert.equal(
      record.failure,
      undefined,
      `client ${i}: ${JSON.stringify(record.answers.at(-1))}`,
    );
    for (const a of record.answers) {
      assert.ok((a.status >= 200 && a.status < 300) || a.status === 503, `status ${a.status}`);
    }
    assert.equal(record.answers.at(-1)?.close, true, `client ${i} was not told to close`);
    assert.equal(record.answers.filter((a) => a.close).length, 1);
  }
}

for (const paceMs of [0, 50]) {
  Deno.test(`keep-alive clients ${paceMs ? "pacing their requests" : "hammering"} during a shutdown get 503 + Connection: close, never a reset`, async () => {
    for (let round = 0; round < 3; round++) {
      const server = await startServer([{
        name: "api",
        addr: "127.0.0.1:0",
        handler: async () => {
          // real clock: handlers of varied latency, so the shutdown meets requests at every stage
          await new Promise((r) => setTimeout(r, Math.random() * 3));
          return new Response("ok");
        },
      }], { logger: silentLogger(), handleSignals: false, shutdownGrace: 10_000 });
      const clients = startKeepAliveClients(server.urls.api, { clients: 16, paceMs });
      await waitUntil(() => clients.answered() >= 64, { what: "64 answered requests" });
      const report = await server.shutdown();
      assert.equal(report.forced, false);
      const records = await clients.ended;
      assertToldToClose(records);
      const refused = records.flatMap((r) => r.answers).filter((a) => a.status === 503);
      assert.ok(refused.length > 0 || paceMs === 0, "paced clients are idle when it starts");
      await assert.rejects(fetch(server.urls.api), "the listener is closed after the drain");
    }
  });
}
