import assert from "node:assert/strict";
import { createLifecycle } from "@svc/shared/lifecycle";
import { createLogger } from "@svc/shared/log";
import { createMetrics } from "@svc/shared/metrics";
import { TEST_DATABASE_URL, withoutPostgres } from "./_test_support.ts";
import { serveIsolate } from "./serve.ts";
import { resolveSettings } from "./settings.ts";
import { reserveDb } from "./store/open_db.ts";

const HOUR_MS = 3_600_000;

/** `serve`'s settings on loopback ports the system picks. */
function settingsOf(...args: string[]) {
  return resolveSettings(
    ["serve", "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", ...args],
    () => undefined,
  ).settings;
}

/** One isolate's server whose datastore open is due only after a request (or an hour). */
async function startIsolate(args: string[]) {
  const lines: string[] = [];
  const server = await serveIsolate(settingsOf(...args), {
    logger: createLogger({ write: (line) => lines.push(line) }),
    lifecycle: createLifecycle({ handleSignals: false }),
    metrics: createMetrics({ service: "todo-api" }),
    metricsListener: false,
    openAfterMs: HOUR_MS,
  });
  return { server, lines };
}

Deno.test("a shutdown before the datastore's open was due opens nothing and gives PGlite's lock back", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "todo-api-serve-" });
  try {
    const { server, lines } = await startIsolate(["--data-dir", `${dataDir}/db`]);
    // held while serving: a second reservation of the directory is refused
    await assert.rejects(reserveDb({ databaseUrl: "", dataDir: `${dataDir}/db` }), {
      code: "data_dir_locked",
    });
    const report = await server.shutdown();
    assert.equal(report.forced, false);
    await assert.rejects(server.opened, /the server is stopping/);
    assert.ok(!lines.some((l) => l.includes('"datastore open"')), lines.join("\n"));
    assert.ok(!lines.some((l) => l.includes('"datastore closed"')), "nothing was opened to close");
    const again = await reserveDb({ databaseUrl: "", dataDir: `${dataDir}/db` });
    await again.release();
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test({
  name: "the datastore opens once the first request has come in, not at openAfterMs",
  ignore: withoutPostgres(import.meta.url),
  async fn() {
    const { server, lines } = await startIsolate(["--database-url", TEST_DATABASE_URL!]);
    try {
      let settled = false;
      server.opened.finally(() => settled = true);
      await Promise.resolve();
      assert.equal(settled, false, "not opened before any request");
      const res = await fetch(`${server.urls.api}/healthz`);
      assert.equal(res.status, 200);
      await res.body?.cancel();
      await server.opened; // an hour early: the request's arrival started it
    } finally {
      await server.shutdown();
    }
    assert.ok(lines.some((l) => l.includes('"datastore closed"')), lines.join("\n"));
  },
});
