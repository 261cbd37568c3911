import assert from "node:assert/strict";
import { startServer } from "./server.ts";
import { createLogger, silentLogger } from "../observe/log.ts";
import { createLifecycle } from "../lifecycle/lifecycle.ts";
import { nextTurn, waitUntil } from "@svc/testing";

/** Whether `p` has settled after a few turns of the event loop. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let yes = false;
  p.then(() => yes = true, () => yes = true);
  for (let i = 0; i < 5; i++) await nextTurn();
  return yes;
}

Deno.test("afterFirstAnswer: the start waits for the first answer, then runs once", async () => {
  const calls: string[] = [];
  const server = await startServer([{
    name: "api",
    addr: "127.0.0.1:0",
    handler: () => {
      calls.push("request");
      return new Response("ok");
    },
  }], {
    logger: silentLogger(),
    handleSignals: false,
    afterFirstAnswer: { maxWaitMs: 60_000, start: () => void calls.push("start") },
  });
  assert.equal(await settled(server.started), false, "no request, maxWaitMs not over: no start");
  assert.deepEqual(calls, []);
  assert.equal(await (await fetch(server.urls.api)).text(), "ok");
  assert.equal(await server.started, true);
  assert.deepEqual(calls, ["request", "start"], "the start comes after the answer");
  assert.equal(await (await fetch(server.urls.api)).text(), "ok");
  assert.deepEqual(calls, ["request", "start", "request"], "and only once");
  const report = await server.shutdown();
  assert.equal(report.forced, false);
});

Deno.test("afterFirstAnswer: without a request the start begins after maxWaitMs", async () => {
  let signal: AbortSignal | undefined;
  const lifecycle = createLifecycle({ handleSignals: false });
  const server = await startServer(
    [{ name: "api", addr: "127.0.0.1:0", handler: () => new Response("ok") }],
    {
      logger: silentLogger(),
      lifecycle,
      afterFirstAnswer: { maxWaitMs: 0, start: (s) => void (signal = s) },
    },
  );
  assert.equal(await server.started, true);
  assert.equal(signal, lifecycle.signal, "the start gets the lifecycle's signal");
  await server.shutdown();
  assert.equal(signal.aborted, true);
});

Deno.test("afterFirstAnswer: after arrival, the first request waits on the start it began", async () => {
  const opened = Promise.withResolvers<string>();
  let began = false;
  const server = await startServer([{
    name: "api",
    addr: "127.0.0.1:0",
    // like a datastore's open: the request needs what the start makes
    handler: async () => new Response(await opened.promise),
  }], {
    logger: silentLogger(),
    handleSignals: false,
    afterFirstAnswer: {
      after: "arrival",
      maxWaitMs: 60_000,
      start: () => {
        began = true;
        opened.resolve("open");
      },
    },
  });
  assert.equal(await settled(server.started), false);
  assert.equal(began, false);
  const res = await fetch(server.urls.api);
  assert.equal(await res.text(), "open", "the answer came after the start it waited on");
  assert.equal(await server.started, true);
  await server.shutdown();
});

Deno.test("afterFirstAnswer: only the first listener's requests count", async () => {
  let began = false;
  const server = await startServer([
    { name: "api", addr: "127.0.0.1:0", handler: () => new Response("api") },
    { name: "metrics", addr: "127.0.0.1:0", handler: () => new Response("metrics") },
  ], {
    logger: silentLogger(),
    handleSignals: false,
    afterFirstAnswer: { maxWaitMs: 60_000, start: () => void (began = true) },
  });
  assert.equal(await (await fetch(server.urls.metrics)).text(), "metrics");
  assert.equal(await settled(server.started), false);
  assert.equal(began, false, "a scrape of another listener starts nothing");
  assert.equal(await (await fetch(server.urls.api)).text(), "api");
  assert.equal(await server.started, true);
  await server.shutdown();
});

Deno.test("afterFirstAnswer: a shutdown before any request skips the start", async () => {
  let began = false;
  const server = await startServer(
    [{ name: "api", addr: "127.0.0.1:0", handler: () => new Response("ok") }],
    {
      logger: silentLogger(),
      handleSignals: false,
      afterFirstAnswer: { maxWaitMs: 60_000, start: () => void (began = true) },
    },
  );
  const report = await server.shutdown();
  assert.equal(report.forced, false);
  assert.equal(await server.started, false);
  assert.equal(began, false);
});

Deno.test("afterFirstAnswer: a lifecycle shut down during the start-up never starts the work", async () => {
  const lifecycle = createLifecycle({ handleSignals: false });
  lifecycle.shutdown("SIGTERM during startup");
  let began = false;
  const server = await startServer(
    [{ name: "api", addr: "127.0.0.1:0", handler: () => new Response("ok") }],
    {
      logger: silentLogger(),
      lifecycle,
      afterFirstAnswer: { maxWaitMs: 0, start: () => void (began = true) },
    },
  );
  await server.finished;
  assert.equal(await server.started, false);
  assert.equal(began, false);
});

Deno.test("afterFirstAnswer: a failed start stops the server at once and finished rejects with it", async () => {
  const lines: Record<string, unknown>[] = [];
  const failure = new Error("Cannot start the signer: no threads");
  let onShutdown = false;
  const server = await startServer(
    [{ name: "api", addr: "127.0.0.1:0", handler: () => new Response("ok") }],
    {
      logger: createLogger({ write: (l) => lines.push(JSON.parse(l)) }),
      handleSignals: false,
      // a minute of delay would keep a server that was never ready serving: it is skipped
      shutdownDelay: 60_000,
      onShutdown: () => void (onShutdown = true),
      afterFirstAnswer: {
        maxWaitMs: 0,
        start: () => Promise.reject(failure),
      },
    },
  );
  await assert.rejects(server.started, (e) => e === failure);
  await waitUntil(() => lines.some((l) => l.msg === "shutdown_started"), {
    what: "the shutdown to start",
  });
  const started = lines.find((l) => l.msg === "shutdown_started")!;
  assert.equal(started.delay_ms, 0);
  await assert.rejects(server.finished, (e) => e === failure);
  assert.equal(onShutdown, true, "the shutdown ran in full");
  await assert.rejects(fetch(server.urls.api), "the listener is closed");
});

Deno.test("afterFirstAnswer: a listener that cannot start never starts the work", async () => {
  const taken = await startServer(
    [{ name: "api", addr: "127.0.0.1:0", handler: () => new Response() }],
    { logger: silentLogger(), handleSignals: false },
  );
  assert.equal(await taken.started, true, "true at once without afterFirstAnswer");
  let began = false;
  await assert.rejects(
    startServer([{
      name: "api",
      addr: taken.urls.api.replace("http://", ""),
      handler: () => new Response(),
    }], {
      logger: silentLogger(),
      handleSignals: false,
      afterFirstAnswer: { maxWaitMs: 0, start: () => void (began = true) },
    }),
    /already in use/,
  );
  for (let i = 0; i < 5; i++) await nextTurn();
  assert.equal(began, false);
  await taken.shutdown();
});
