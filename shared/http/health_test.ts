import assert from "node:assert/strict";
import { healthHandler, readinessHandler } from "./health.ts";

const req = new Request("http://x/readyz");

Deno.test("healthHandler() answers ok", async () => {
  const res = healthHandler();
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { status: "ok" });
});

Deno.test("readinessHandler() is ready with no checks", async () => {
  const res = await readinessHandler({})(req);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { status: "ready", checks: {} });
});

Deno.test("readinessHandler() reports each named check and 503 when one fails", async () => {
  const res = await readinessHandler({
    datastore: async () => {},
    migrations: () => {
      throw new Error("2 pending migrations");
    },
  })(req);
  assert.equal(res.status, 503);
  assert.deepEqual(await res.json(), {
    status: "not_ready",
    checks: {
      datastore: { status: "ok" },
      migrations: { status: "fail", error: "2 pending migrations" },
    },
  });
});

Deno.test("readinessHandler() fails a check that hangs past timeoutMs", async () => {
  let t: ReturnType<typeof setTimeout> | undefined;
  const res = await readinessHandler({
    // real clock: a check that hangs past the readiness timeout, a real timer
    slow: () => new Promise<void>((r) => t = setTimeout(r, 1_000)),
  }, { timeoutMs: 20 })(req);
  clearTimeout(t);
  assert.equal(res.status, 503);
  assert.match((await res.json()).checks.slow.error, /timed out after 20ms/);
});

Deno.test("readinessHandler() reports draining once the shutdown starts, without checks", async () => {
  const shutdown = new AbortController();
  let checked = 0;
  const readyz = readinessHandler({ datastore: () => void checked++ }, {
    shutdownSignal: shutdown.signal,
  });
  assert.equal((await readyz(req)).status, 200);
  assert.equal(checked, 1);
  shutdown.abort();
  const res = await readyz(req);
  assert.equal(res.status, 503);
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.deepEqual(await res.json(), { status: "not_ready", reason: "draining", checks: {} });
  assert.equal(checked, 1, "no dependency is touched while draining");
});
