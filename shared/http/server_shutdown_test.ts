import assert from "node:assert/strict";
import { startServer } from "./server.ts";
import { createLogger, silentLogger } from "../observe/log.ts";
import { createLifecycle, createReadinessProbe, delay } from "../lifecycle/mod.ts";

Deno.test("during the shutdown delay the server keeps serving while readiness says draining", async () => {
  const lifecycle = createLifecycle({ handleSignals: false });
  const probe = createReadinessProbe({ check: () => {}, shutdownSignal: lifecycle.signal });
  await probe.probe();
  const lines: Record<string, unknown>[] = [];
  const server = await startServer([{
    name: "api",
    addr: "127.0.0.1:0",
    handler: (req) =>
      new URL(req.url).pathname === "/readyz" ? probe.handler(req) : new Response("served"),
  }], {
    logger: createLogger({ write: (l) => lines.push(JSON.parse(l)) }),
    lifecycle,
    shutdownDelay: 2_000,
    shutdownGrace: 5_000,
  });
  const ready = await fetch(server.urls.api + "/readyz");
  assert.equal(ready.status, 200);
  await ready.body?.cancel();
  const t0 = performance.now();
  const stopping = server.shutdown();
  assert.ok(server.signal.aborted, "the shutdown-started signal aborts at once");
  const readyz = await fetch(server.urls.api + "/readyz");
  assert.equal(readyz.status, 503);
  assert.deepEqual(await readyz.json(), { status: "not_ready", reason: "draining" });
  const during = await fetch(server.urls.api + "/work");
  assert.equal(during.status, 200, "requests are still served during the delay");
  assert.equal(await during.text(), "served");
  const report = await stopping;
  assert.ok(performance.now() - t0 >= 1_990, "accepting stops only after the delay");
  assert.deepEqual(report, { forced: false, tasks: { stopped: [], failed: [], abandoned: [] } });
  const shutting = lines.find((l) => l.msg === "shutdown_started");
  assert.equal(shutting?.delay_ms, 2_000);
  assert.equal(shutting?.grace_ms, 5_000);
  await assert.rejects(fetch(server.urls.api), "the listener is closed after the drain");
});

Deno.test("background tasks are aborted when the shutdown starts and awaited before onShutdown", async () => {
  const lifecycle = createLifecycle({ handleSignals: false });
  const order: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => release = r);
  let started!: () => void;
  const inFlight = new Promise<void>((r) => started = r);
  lifecycle.spawn("loop", async (signal) => {
    await delay(3_600_000, { signal }).catch(() => order.push("task aborted"));
    release(); // lets the in-flight request finish only once the task saw the abort
    // real clock: a cleanup that takes a while after the abort, which the shutdown must await
    await delay(10);
    order.push("task ended");
  });
  const server = await startServer([{
    name: "api",
    addr: "127.0.0.1:0",
    handler: async () => {
      started();
      await gate;
      order.push("request answered");
      return new Response("done");
    },
  }], {
    logger: silentLogger(),
    lifecycle,
    shutdownGrace: 10_000,
    onShutdown: () => void order.push("onShutdown"),
  });
  const pending = fetch(server.urls.api);
  await inFlight;
  const report = await server.shutdown();
  assert.equal(await (await pending).text(), "done");
  assert.deepEqual(order, ["task aborted", "request answered", "task ended", "onShutdown"]);
  assert.deepEqual(report.tasks, { stopped: ["loop"], failed: [], abandoned: [] });
});

Deno.test("a task that ignores its signal is abandoned once the grace period is over", async () => {
  const lifecycle = createLifecycle({ handleSignals: false });
  const never = Promise.withResolvers<void>();
  lifecycle.spawn("stuck", () => never.promise);
  const server = await startServer(
    [{ name: "api", addr: "127.0.0.1:0", handler: () => new Response() }],
    { logger: silentLogger(), lifecycle, shutdownGrace: 200 },
  );
  const report = await server.shutdown();
  assert.deepEqual(report.tasks.abandoned, ["stuck"]);
  never.resolve();
});

Deno.test("the report says forced when the grace period cut open requests", async () => {
  const server = await startServer([{
    name: "api",
    addr: "127.0.0.1:0",
    handler: () => new Response(new ReadableStream({ start: (c) => c.enqueue(new Uint8Array(1)) })),
  }], { logger: silentLogger(), handleSignals: false, shutdownGrace: 100 });
  const res = await fetch(server.urls.api);
  const reader = res.body!.getReader();
  await reader.read();
  const report = await server.shutdown();
  assert.equal(report.forced, true);
  assert.equal(await server.finished, report);
  await assert.rejects(reader.read());
});

Deno.test("a lifecycle already shut down stops the server right after it listens", async () => {
  const lifecycle = createLifecycle({ handleSignals: false });
  lifecycle.shutdown("SIGTERM during startup");
  const server = await startServer(
    [{ name: "api", addr: "127.0.0.1:0", handler: () => new Response() }],
    { logger: silentLogger(), lifecycle },
  );
  const report = await server.finished;
  assert.equal(report.forced, false);
  assert.equal(await lifecycle.untilShutdown(), "SIGTERM during startup");
});
