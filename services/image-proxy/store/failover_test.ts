import assert from "node:assert/strict";
import { memoryStore, object } from "../_test_support.ts";
import { StoreError, type StoreErrorCode } from "./errors.ts";
import { createBreaker, failoverStore, failsOver } from "./failover.ts";

function clockedBreaker(failures: number, probeIntervalMs = 1_000) {
  let t = 0;
  const probes: { resolve: () => void; reject: () => void }[] = [];
  const breaker = createBreaker({
    failures,
    probeIntervalMs,
    now: () => t,
    probe: () => new Promise<void>((resolve, reject) => probes.push({ resolve, reject })),
  });
  return { breaker, probes, advance: (ms: number) => t += ms };
}

Deno.test("failsOver: storage unavailability and timeouts only", () => {
  const codes: [StoreErrorCode, boolean][] = [
    ["unavailable", true],
    ["timeout", true],
    ["not_found", false],
    ["denied", false],
    ["misconfigured", false],
    ["changed", false],
    ["aborted", false],
    ["failed", false],
  ];
  for (const [code, expected] of codes) {
    assert.equal(failsOver(new StoreError(code, "x")), expected, code);
  }
  assert.equal(failsOver(new Error("x")), false);
});

Deno.test("breaker: opens at `failures` in a row, not below; a success resets the count", () => {
  const { breaker } = clockedBreaker(3);
  breaker.failure();
  breaker.failure();
  assert.equal(breaker.open, false); // below
  breaker.success();
  breaker.failure();
  breaker.failure();
  assert.equal(breaker.open, false); // the success reset the row
  breaker.failure();
  assert.equal(breaker.open, true); // at
  assert.equal(breaker.usePrimary(), false);
});

Deno.test("breaker: probes once the interval is over, closes when a probe succeeds", async () => {
  const { breaker, probes, advance } = clockedBreaker(1, 1_000);
  assert.equal(breaker.usePrimary(), true);
  breaker.failure();
  advance(999);
  assert.equal(breaker.usePrimary(), false);
  assert.equal(probes.length, 0); // below the interval: no probe
  advance(1);
  assert.equal(breaker.usePrimary(), false); // at: the probe starts, this request still skips
  assert.equal(probes.length, 1);
  assert.equal(breaker.usePrimary(), false);
  assert.equal(probes.length, 1); // one probe at a time
  probes[0].reject();
  await breaker.probing;
  assert.equal(breaker.open, true);
  advance(999);
  breaker.usePrimary();
  assert.equal(probes.length, 1); // a failed probe restarts the interval
  advance(1);
  breaker.usePrimary();
  assert.equal(probes.length, 2);
  probes[1].resolve();
  await breaker.probing;
  assert.equal(breaker.open, false);
  assert.equal(breaker.usePrimary(), true);
  // Closed again, it counts from zero.
  breaker.failure();
  assert.equal(breaker.open, true);
});

function stores() {
  const primary = memoryStore({ "k": object("primary bytes"), "only-p": object("p") });
  const secondary = memoryStore({ "k": object("secondary bytes"), "only-s": object("s") });
  const { breaker, advance, probes } = clockedBreaker(2, 1_000);
  return {
    primary,
    secondary,
    breaker,
    advance,
    probes,
    store: failoverStore(primary, secondary, breaker),
  };
}

const text = async (body: ReadableStream<Uint8Array>) => await new Response(body).text();

Deno.test("failover store: the primary answers while healthy", async () => {
  const { store, secondary } = stores();
  const pinned = store.forRequest();
  assert.equal(pinned.answered, undefined);
  assert.equal(await text((await pinned.get("k")).body), "primary bytes");
  assert.equal(pinned.answered, "primary");
  assert.deepEqual(secondary.calls, []);
});

Deno.test("failover store: an unavailable or timed-out primary sends the request to the secondary", async () => {
  for (const code of ["unavailable", "timeout"] as const) {
    const { store, primary, breaker } = stores();
    primary.failures.push(code);
    const pinned = store.forRequest();
    assert.equal(await text((await pinned.get("k")).body), "secondary bytes");
    assert.equal(pinned.answered, "secondary");
    assert.equal(breaker.open, false); // one failure of two
  }
});

Deno.test("failover store: a 404, a denial or a misconfiguration of the primary is the answer", async () => {
  for (const code of ["not_found", "denied", "misconfigured"] as const) {
    const { store, primary, secondary } = stores();
    primary.failures.push(code);
    const pinned = store.forRequest();
    await assert.rejects(pinned.get("k"), (e) => e instanceof StoreError && e.code === code);
    assert.equal(pinned.answered, "primary");
    assert.deepEqual(secondary.calls, []);
  }
  const { store } = stores();
  await assert.rejects(store.forRequest().head("only-s"), /no such key/); // never looked up there
});

Deno.test("failover store: a request stays on its store; a primary lost after the metadata restarts it on the secondary", async () => {
  const { store, primary, secondary } = stores();
  const pinned = store.forRequest();
  const meta = await pinned.head("k");
  assert.equal(meta.size, "primary bytes".length);
  primary.failures.push("unavailable");
  await assert.rejects(
    pinned.get("k", { ifMatch: meta.etag }),
    (e) => e instanceof StoreError && e.code === "changed",
  );
  assert.equal(pinned.answered, "secondary");
  // The caller reads the metadata again: from the secondary, and the body from there too.
  const again = await pinned.head("k");
  assert.equal(again.size, "secondary bytes".length);
  assert.equal(
    await text((await pinned.get("k", { ifMatch: again.etag })).body),
    "secondary bytes",
  );
  assert.deepEqual(primary.calls, ["head k", "get k"]);
  assert.deepEqual(secondary.calls, ["head k", "get k"]);
});

Deno.test("failover store: an open breaker skips the primary until its probe succeeds", async () => {
  const { store, primary, secondary, breaker, advance, probes } = stores();
  primary.failures.push("unavailable", "unavailable");
  await store.forRequest().head("k");
  await store.forRequest().head("k");
  assert.equal(breaker.open, true);
  const callsBefore = primary.calls.length;
  const pinned = store.forRequest();
  assert.equal(await text((await pinned.get("k")).body), "secondary bytes");
  assert.equal(pinned.answered, "secondary");
  assert.equal(primary.calls.length, callsBefore); // not even tried
  advance(1_000);
  await store.forRequest().head("k"); // starts the probe, still on the secondary
  assert.equal(probes.length, 1);
  probes[0].resolve();
  await breaker.probing;
  const back = store.forRequest();
  assert.equal(await text((await back.get("k")).body), "primary bytes");
  assert.equal(back.answered, "primary");
  assert.ok(secondary.calls.length >= 3);
});
