/**
 * Seeded raw-socket fuzz of the real mcp-server process (http transport, its deployed
 * permissions from `deploy/services.ts`, mock-oidc as the issuer): malformed and aborted requests
 * of every kind, HTTP/2 with prior knowledge among them, aimed at `POST /mcp` with a valid token
 * and without one, and at unknown paths, never answer 5xx and never end the process. Replay a
 * failure with `FUZZ_SEED=<n>`.
 */
import assert from "node:assert/strict";
import { type FuzzReport, runFuzz } from "@svc/testing";
import { startHttpStack } from "./_test_support.ts";

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "f", version: "1" },
  },
});
const CALL = JSON.stringify({
  jsonrpc: "2.0",
  id: 2,
  method: "tools/call",
  params: { name: "execute", arguments: { code: "1 + 1" } },
});

Deno.test({
  name: "fuzzed raw requests: never a 5xx, /healthz after every batch, the process lives",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const stack = await startHttpStack();
    let report: FuzzReport;
    let code: number;
    try {
      const token = await stack.token("fuzz");
      const mcp = {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-06-18",
      };
      report = await runFuzz({
        url: stack.server.url,
        // Most cases wait on a kept-alive or stalled connection until the read bound: 16 at a
        // time (not the default 6) cuts the wait, the cases and their seed stay the same.
        concurrency: 16,
        targets: [
          {
            method: "POST",
            path: "/mcp",
            headers: { ...mcp, Authorization: `Bearer ${token}` },
            body: INITIALIZE,
          },
          {
            method: "POST",
            path: "/mcp",
            headers: { ...mcp, Authorization: `Bearer ${token}` },
            body: CALL,
          },
          { method: "POST", path: "/mcp", headers: mcp, body: INITIALIZE },
          { method: "GET", path: "/mcp", headers: { Authorization: `Bearer ${token}` } },
          { method: "GET", path: "/.well-known/oauth-protected-resource/mcp" },
        ],
        exited: stack.server.exited,
      });
    } finally {
      code = await stack.server.stop();
      await stack.oidc.stop();
    }
    const tail = stack.server.output().slice(-3000);
    assert.deepEqual(report.failures, [], tail);
    assert.equal(report.sent, 300);
    for (const status of ["200", "400", "401"]) {
      assert.ok(report.statuses[status] > 0, `no ${status}: ${JSON.stringify(report.statuses)}`);
    }
    assert.equal(code, 0, tail);
    assert.doesNotMatch(stack.server.output(), /unhandled rejection|uncaught exception/, tail);
  },
});
