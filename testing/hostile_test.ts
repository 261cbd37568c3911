import assert from "node:assert/strict";
import { hostileCases, sendRaw, statusOf } from "./hostile.ts";

Deno.test("statusOf reads the status line, 0 without one", () => {
  assert.equal(statusOf("HTTP/1.1 404 Not Found\r\n"), 404);
  assert.equal(statusOf(""), 0);
  assert.equal(statusOf("garbage"), 0);
});

Deno.test({
  name: "every hostile case reaches a real server and its status is read; a 500 is seen",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const seen: string[] = [];
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
      seen.push(req.method);
      const text = await req.text().catch(() => "");
      // A naive handler: parses JSON and echoes it, failing on what it cannot handle.
      if (text.startsWith("[[[")) return new Response("boom", { status: 500 });
      return new Response("ok");
    });
    const base = `http://127.0.0.1:${server.addr.port}`;
    try {
      const cases = hostileCases({ path: "/x", host: `127.0.0.1:${server.addr.port}` });
      assert.ok(cases.length >= 40);
      const statuses = new Map<string, number>();
      for (const c of cases) {
        statuses.set(c.name, (await sendRaw(base, c, { stallMs: 100, timeoutMs: 3000 })).status);
      }
      assert.equal(statuses.get("JSON nested 100 000 deep (arrays)"), 500, "the helper sees a 500");
      assert.equal(statuses.get("TRACE"), 200);
      assert.equal(statuses.get("lowercase method get"), 200);
      assert.ok((statuses.get("Host with port 99999") ?? 0) >= 200);
      assert.ok(seen.includes("TRACK"));
    } finally {
      await server.shutdown();
    }
  },
});
