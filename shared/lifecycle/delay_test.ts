import assert from "node:assert/strict";
import { delay, runEvery } from "./delay.ts";
import { waitUntil } from "@svc/testing";

Deno.test("delay()", async (t) => {
  await t.step("resolves after the time", async () => {
    const t0 = performance.now();
    // real clock: delay() is the subject: it waits on the real clock
    await delay(20);
    assert.ok(performance.now() - t0 >= 19);
  });
  await t.step("rejects with the abort reason when the signal aborts", async () => {
    const stop = new AbortController();
    const waiting = delay(60_000, { signal: stop.signal });
    stop.abort(new Error("shutdown"));
    await assert.rejects(waiting, /shutdown/);
  });
  await t.step("rejects at once when the signal has already aborted", async () => {
    await assert.rejects(delay(60_000, { signal: AbortSignal.abort(new Error("x")) }), /x/);
  });
});

Deno.test("runEvery()", async (t) => {
  await t.step("runs at once, repeats, and stops when the signal aborts", async () => {
    const stop = new AbortController();
    const signals: AbortSignal[] = [];
    await runEvery((signal) => {
      signals.push(signal);
      if (signals.length === 3) stop.abort();
    }, { intervalMs: 1, signal: stop.signal });
    assert.equal(signals.length, 3);
    assert.ok(signals.every((s) => s === stop.signal));
  });
  await t.step("cuts the wait between runs short on abort", async () => {
    const stop = new AbortController();
    let runs = 0;
    const loop = runEvery(() => {
      runs++;
    }, { intervalMs: 3_600_000, signal: stop.signal });
    await waitUntil(() => runs === 1, { what: "the first run" });
    stop.abort();
    await loop; // would hang for an hour if the wait were not cut short
    assert.equal(runs, 1);
  });
  await t.step("waits the interval from the start of one run to the next", async () => {
    const stop = new AbortController();
    const starts: number[] = [];
    await runEvery(() => {
      starts.push(performance.now());
      if (starts.length === 2) stop.abort();
    }, { intervalMs: 30, signal: stop.signal });
    assert.ok(starts[1] - starts[0] >= 29, `${starts[1] - starts[0]}ms apart`);
  });
  await t.step("starts the next run at once after a run longer than the interval", async () => {
    const stop = new AbortController();
    let clock = 0;
    let runs = 0;
    await runEvery(() => {
      clock += 3_600_001; // this run "took" longer than the hour-long interval
      if (++runs === 2) stop.abort();
    }, { intervalMs: 3_600_000, signal: stop.signal, now: () => clock });
    assert.equal(runs, 2); // a wait measured from the end of the run would hang here for an hour
  });
  await t.step("ends with the error of a run that throws", async () => {
    const stop = new AbortController();
    await assert.rejects(
      runEvery(() => {
        throw new Error("reconcile failed");
      }, { intervalMs: 1, signal: stop.signal }),
      /reconcile failed/,
    );
  });
  await t.step("treats a throw after the abort as the end, not a failure", async () => {
    const stop = new AbortController();
    await runEvery((signal) => {
      stop.abort();
      throw signal.reason;
    }, { intervalMs: 1, signal: stop.signal });
  });
  await t.step("never runs when the signal has already aborted", async () => {
    let runs = 0;
    await runEvery(() => {
      runs++;
    }, { intervalMs: 1, signal: AbortSignal.abort() });
    assert.equal(runs, 0);
  });
});
