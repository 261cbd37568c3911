import assert from "node:assert/strict";
import { createLogger } from "../observe/log.ts";
import { createBackgroundTasks } from "./background_tasks.ts";
import { delay, runEvery } from "./delay.ts";
import { nextTurn, waitUntil } from "@svc/testing";

function recordingLogger() {
  const lines: Record<string, unknown>[] = [];
  return {
    lines,
    logger: createLogger({ level: "debug", write: (l) => lines.push(JSON.parse(l)) }),
  };
}

Deno.test("background tasks", async (t) => {
  await t.step("get a signal that stop() aborts, and stop() waits for them", async () => {
    const tasks = createBackgroundTasks();
    let cleanedUp = false;
    tasks.start("loop", async (signal) => {
      await runEvery(() => {}, { intervalMs: 5, signal });
      // real clock: a cleanup that takes a while, which stop() must await
      await delay(20); // cleanup after the abort, which stop() must wait for
      cleanedUp = true;
    });
    assert.deepEqual(tasks.running(), ["loop"]);
    const report = await tasks.stop({ timeoutMs: 10_000 });
    assert.ok(cleanedUp);
    assert.deepEqual(report, { stopped: ["loop"], failed: [], abandoned: [] });
    assert.deepEqual(tasks.running(), []);
  });

  await t.step("a task that ignores its signal is abandoned after the bound", async () => {
    const { lines, logger } = recordingLogger();
    const tasks = createBackgroundTasks({ logger });
    const never = Promise.withResolvers<void>();
    tasks.start("stuck", () => never.promise);
    tasks.start("polite", (signal) => delay(60_000, { signal }));
    const report = await tasks.stop({ timeoutMs: 50 });
    assert.deepEqual(report, { stopped: ["polite"], failed: [], abandoned: ["stuck"] });
    const warn = lines.find((l) => l.msg === "background tasks did not stop in time");
    assert.deepEqual(warn?.tasks, ["stuck"]);
    never.resolve();
  });

  await t.step("a failure while running is logged and reported once", async () => {
    const { lines, logger } = recordingLogger();
    const errors: [string, unknown][] = [];
    const tasks = createBackgroundTasks({ logger, onError: (n, e) => errors.push([n, e]) });
    const failure = new Error("incus unreachable");
    tasks.start("reconcile", async () => {
      await nextTurn();
      throw failure;
    });
    await waitUntil(() => tasks.running().length === 0, { what: "the task to end" });
    assert.deepEqual(errors, [["reconcile", failure]]);
    const line = lines.find((l) => l.msg === "background task failed");
    assert.equal(line?.task, "reconcile");
    assert.equal(line?.level, "error");
    const report = await tasks.stop({ timeoutMs: 1_000 });
    assert.deepEqual(report, { stopped: [], failed: ["reconcile"], abandoned: [] });
  });

  await t.step("a failure while stopping is reported; the abort itself is not", async () => {
    const errors: string[] = [];
    const tasks = createBackgroundTasks({ onError: (n) => errors.push(n) });
    tasks.start("rethrows-abort", (signal) => delay(60_000, { signal }));
    tasks.start("throws-own-abort", async (signal) => {
      await delay(60_000, { signal }).catch(() => {});
      throw new DOMException("fetch aborted", "AbortError");
    });
    tasks.start("flush-fails", async (signal) => {
      await delay(60_000, { signal }).catch(() => {});
      throw new Error("flush failed");
    });
    const report = await tasks.stop({ timeoutMs: 5_000 });
    assert.deepEqual(report.stopped.sort(), ["rethrows-abort", "throws-own-abort"]);
    assert.deepEqual(report.failed, ["flush-fails"]);
    assert.deepEqual(errors, ["flush-fails"]);
  });

  await t.step("a task that ends by itself is counted as stopped", async () => {
    const tasks = createBackgroundTasks();
    tasks.start("once", () => {});
    const report = await tasks.stop();
    assert.deepEqual(report, { stopped: ["once"], failed: [], abandoned: [] });
  });

  await t.step("a synchronous throw is a failure, not a crash", async () => {
    const errors: string[] = [];
    const tasks = createBackgroundTasks({ onError: (n) => errors.push(n) });
    tasks.start("sync", () => {
      throw new Error("bad config");
    });
    const report = await tasks.stop();
    assert.deepEqual(report.failed, ["sync"]);
    assert.deepEqual(errors, ["sync"]);
  });

  await t.step("the parent signal aborts every task; stop() still awaits them", async () => {
    const shutdown = new AbortController();
    const tasks = createBackgroundTasks({ signal: shutdown.signal });
    const seen: boolean[] = [];
    tasks.start("a", async (signal) => {
      await delay(60_000, { signal }).catch(() => {});
      seen.push(signal.aborted);
    });
    shutdown.abort();
    const report = await tasks.stop({ timeoutMs: 5_000 });
    assert.deepEqual(seen, [true]);
    assert.deepEqual(report.stopped, ["a"]);
  });

  await t.step("refuses duplicate names and starts after stop", async () => {
    const tasks = createBackgroundTasks();
    tasks.start("a", (signal) => delay(60_000, { signal }));
    assert.throws(() => tasks.start("a", () => {}), /Cannot start task "a": it is already running/);
    const stopped = tasks.stop({ timeoutMs: 1_000 });
    assert.throws(
      () => tasks.start("b", () => {}),
      /Cannot start task "b": the tasks are stopping/,
    );
    assert.equal(tasks.stop(), stopped, "stop() is idempotent");
    await stopped;
  });

  await t.step("an onError that throws is logged, not thrown", async () => {
    const { lines, logger } = recordingLogger();
    const tasks = createBackgroundTasks({
      logger,
      onError: () => {
        throw new Error("handler broke");
      },
    });
    tasks.start("x", () => Promise.reject(new Error("boom")));
    await tasks.stop();
    assert.ok(lines.some((l) => l.msg === "background task error handler failed"));
  });
});
