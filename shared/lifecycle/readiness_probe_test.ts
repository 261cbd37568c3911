import assert from "node:assert/strict";
import { createLogger } from "../observe/log.ts";
import { delay } from "./delay.ts";
import {
  createReadinessProbe,
  NotReadyError,
  type Readiness,
  type ReadinessProbeOptions,
} from "./readiness_probe.ts";
import { waitUntil } from "@svc/testing";

const READY: Readiness = { ready: true };
const notReady = (reason: string): Readiness => ({ ready: false, reason });

/** A probe whose check outcome the test sets, with every reported change recorded. */
function setup(options: Partial<ReadinessProbeOptions> = {}) {
  let outcome: () => void = () => {};
  const changes: Readiness[] = [];
  const lines: Record<string, unknown>[] = [];
  const probe = createReadinessProbe({
    check: () => outcome(),
    onChange: (state) => changes.push(state),
    logger: createLogger({ write: (l) => lines.push(JSON.parse(l)) }),
    ...options,
  });
  return {
    probe,
    changes,
    lines,
    set(next: () => void) {
      outcome = next;
    },
  };
}

Deno.test("readiness probe transitions", async (t) => {
  await t.step("starting → ready → failure reason → ready, each change reported", async () => {
    const { probe, changes, lines, set } = setup();
    assert.deepEqual(probe.current(), notReady("starting"));
    assert.deepEqual(await probe.probe(), READY);
    set(() => {
      throw new NotReadyError("catalog_missing", "streams/v1/index.json: 404");
    });
    assert.deepEqual(await probe.probe(), notReady("catalog_missing"));
    assert.deepEqual(await probe.probe(), notReady("catalog_missing")); // unchanged: no report
    set(() => {
      throw new NotReadyError("s3_misconfigured");
    });
    assert.deepEqual(await probe.probe(), notReady("s3_misconfigured"));
    set(() => {});
    assert.deepEqual(await probe.probe(), READY);
    assert.deepEqual(changes, [
      READY,
      notReady("catalog_missing"),
      notReady("s3_misconfigured"),
      READY,
    ]);
    const logged = lines.filter((l) => l.msg === "readiness changed");
    assert.deepEqual(logged.map((l) => [l.ready, l.reason]), [
      [true, undefined],
      [false, "catalog_missing"],
      [false, "s3_misconfigured"],
      [true, undefined],
    ]);
  });

  await t.step("a failure before any success reports the failure's reason", async () => {
    const { probe, set } = setup();
    set(() => {
      throw new NotReadyError("s3_unavailable");
    });
    assert.deepEqual(await probe.probe(), notReady("s3_unavailable"));
  });

  await t.step("errors that are not NotReadyError go through reasonOf", async () => {
    const plain = setup();
    plain.set(() => {
      throw new TypeError("fetch failed");
    });
    assert.deepEqual(await plain.probe.probe(), notReady("unavailable"));
    const mapped = setup({ reasonOf: (e) => e instanceof TypeError ? "s3_unavailable" : "x" });
    mapped.set(() => {
      throw new TypeError("fetch failed");
    });
    assert.deepEqual(await mapped.probe.probe(), notReady("s3_unavailable"));
  });

  await t.step("a success stays valid for stalenessMs, not one ms longer", async () => {
    let clock = 1_000;
    const { probe } = setup({ stalenessMs: 30_000, now: () => clock });
    await probe.probe();
    clock = 1_000 + 29_999;
    assert.deepEqual(probe.current(), READY);
    clock = 1_000 + 30_000;
    assert.deepEqual(probe.current(), READY);
    clock = 1_000 + 30_001;
    assert.deepEqual(probe.current(), notReady("stale"));
    await probe.probe(); // a fresh success starts a new window
    assert.deepEqual(probe.current(), READY);
  });

  await t.step("staleReason renames the stale state", async () => {
    let clock = 0;
    const { probe } = setup({ stalenessMs: 10, staleReason: "s3_unavailable", now: () => clock });
    await probe.probe();
    clock = 11;
    assert.deepEqual(probe.current(), notReady("s3_unavailable"));
  });

  await t.step("a check that outlives timeoutMs fails, and its signal aborts", async () => {
    let seen: AbortSignal | undefined;
    const { probe } = setup({
      timeoutMs: 20,
      reasonOf: (e) => (e as Error).name === "TimeoutError" ? "s3_unavailable" : "other",
      check: (signal) => {
        seen = signal;
        return new Promise(() => {}); // never settles
      },
    });
    assert.deepEqual(await probe.probe(), notReady("s3_unavailable"));
    assert.equal(seen?.aborted, true);
  });

  await t.step("the shutdown signal makes it draining, whatever the probes say", async () => {
    const shutdown = new AbortController();
    const { probe, changes } = setup({ shutdownSignal: shutdown.signal });
    await probe.probe();
    shutdown.abort();
    assert.deepEqual(probe.current(), notReady("draining"));
    assert.deepEqual(changes, [READY, notReady("draining")]);
    await probe.probe();
    assert.deepEqual(probe.current(), notReady("draining"));
    assert.equal(changes.length, 2);
  });
});

Deno.test("readiness probe in the background", async (t) => {
  await t.step("run() probes on the interval until its signal aborts", async () => {
    let checks = 0;
    const probe = createReadinessProbe({ check: () => void checks++, intervalMs: 5 });
    const stop = new AbortController();
    const running = probe.run(stop.signal);
    await waitUntil(() => checks >= 3, { what: "three probes" });
    assert.deepEqual(probe.current(), READY);
    stop.abort();
    await running;
    const after = checks;
    // real clock: six probe intervals pass: a probe after the stop would show up
    await delay(30);
    assert.equal(checks, after, "no probe after the stop");
  });

  await t.step("the staleness expiry is reported without a request", async () => {
    const stale = Promise.withResolvers<Readiness>();
    let calls = 0;
    const probe = createReadinessProbe({
      // The first probe succeeds; the next one never finishes, so the success goes stale.
      check: () => calls++ === 0 ? undefined : new Promise<void>(() => {}),
      intervalMs: 3_600_000,
      timeoutMs: 3_600_000,
      stalenessMs: 30,
      onChange: (state) => {
        if (!state.ready) stale.resolve(state);
      },
    });
    const stop = new AbortController();
    const running = probe.run(stop.signal);
    assert.deepEqual(await stale.promise, notReady("stale"));
    stop.abort();
    await running;
  });

  await t.step("/readyz answers from the cache while a probe hangs", async () => {
    const hang = Promise.withResolvers<void>();
    let calls = 0;
    const probe = createReadinessProbe({
      check: () => calls++ === 0 ? undefined : hang.promise,
      intervalMs: 1,
      timeoutMs: 3_600_000,
    });
    const stop = new AbortController();
    const running = probe.run(stop.signal);
    await waitUntil(() => calls >= 2, { what: "two probes" });
    const res = probe.handler(new Request("http://x/readyz")); // synchronous: cannot wait
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: "ready" });
    stop.abort();
    await running; // the hanging check is abandoned, the loop ends
    hang.resolve();
  });
});

Deno.test("readiness probe handler", async (t) => {
  await t.step("200 ready, 503 with reason, no-store, HEAD without body", async () => {
    const { probe, set } = setup();
    let res = probe.handler(new Request("http://x/readyz"));
    assert.equal(res.status, 503);
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.equal(res.headers.get("content-type"), "application/json");
    assert.deepEqual(await res.json(), { status: "not_ready", reason: "starting" });
    await probe.probe();
    res = probe.handler(new Request("http://x/readyz", { method: "HEAD" }));
    assert.equal(res.status, 200);
    assert.equal(res.body, null);
    set(() => {
      throw new NotReadyError("s3_unavailable");
    });
    await probe.probe();
    res = probe.handler(new Request("http://x/readyz", { method: "HEAD" }));
    assert.equal(res.status, 503);
    assert.equal(res.body, null);
  });

  await t.step("rejects intervals, windows and timeouts that are not positive", () => {
    for (const name of ["intervalMs", "stalenessMs", "timeoutMs"]) {
      for (const bad of [0, -1, NaN, Infinity]) {
        assert.throws(
          () => createReadinessProbe({ check: () => {}, [name]: bad }),
          new RangeError(`Cannot create readiness probe: ${name} must be a positive number`),
        );
      }
      createReadinessProbe({ check: () => {}, [name]: 1 });
    }
  });
});
