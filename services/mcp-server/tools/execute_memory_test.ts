import assert from "node:assert/strict";
import { CapabilityRegistry } from "../capabilities/registry.ts";
import { t } from "../capabilities/schema.ts";
import { type Limits, resolveLimits } from "../limits.ts";
import { createExecutePool } from "./server.ts";
import { connect, errorOf, valueOf } from "./_test_support.ts";
import { main } from "./_execute_test_support.ts";
import { waitUntil } from "@svc/testing";

const LIMIT = "resource limit exceeded";

/** A registry whose `gate.wait` holds its caller until the test opens the gate. */
function gated() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => open = resolve);
  let entered = 0;
  const registry = new CapabilityRegistry();
  registry.register({
    name: "gate.wait",
    summary: "waits for the test",
    output: t.fields({ ok: t.bool() }),
    handler: async () => {
      entered++;
      await gate;
      return { ok: true };
    },
  });
  return { registry, open, entered: () => entered };
}

function until(condition: () => boolean): Promise<void> {
  return waitUntil(condition, { what: "the pool to reach the awaited state" });
}

/**
 * One worker held by a gated call, then `queued` more calls: returns the texts of the calls past
 * the first once the gate opens (or at once for those refused).
 */
async function fill(maxQueued: number, queued: number): Promise<string[]> {
  const { registry, open, entered } = gated();
  const limits: Limits = resolveLimits({
    maxConcurrentExecutions: 1,
    maxQueuedExecutions: maxQueued,
    executionQueueMs: 120_000,
    maxExecutionMs: 120_000,
  });
  const pool = createExecutePool(limits);
  const c = await connect({ registry, limits, pool });
  const source = main("return gate.wait()");
  try {
    const first = c.call("execute", { source });
    await until(() => entered() === 1); // the only worker is taken
    const texts: string[] = [];
    const rest = [];
    for (let i = 0; i < queued; i++) {
      const call = c.call("execute", { source });
      rest.push(call);
      if (i < maxQueued) await until(() => pool.waiting === i + 1);
      else texts[i] = errorOf(await call); // refused at once, while the worker is still held
    }
    assert.equal(pool.waiting, Math.min(queued, maxQueued));
    open();
    assert.deepEqual(valueOf(await first), { result: { ok: true } });
    for (const [i, r] of (await Promise.all(rest)).entries()) {
      texts[i] ??= r.isError ? errorOf(r) : "ok";
    }
    // the queue is empty again: a new call runs
    assert.deepEqual(valueOf(await c.call("execute", { source })), { result: { ok: true } });
    return texts;
  } finally {
    await c.close();
    pool.close();
  }
}

Deno.test("execute queue cap: below, at and above --max-queued-executions", async (step) => {
  await step.step("below the cap: every waiting call runs", async () => {
    assert.deepEqual(await fill(3, 2), ["ok", "ok"]);
  });
  await step.step("at the cap: every waiting call runs", async () => {
    assert.deepEqual(await fill(3, 3), ["ok", "ok", "ok"]);
  });
  await step.step("above the cap: the extra calls fail at once, the others run", async () => {
    assert.deepEqual(await fill(3, 5), ["ok", "ok", "ok", LIMIT, LIMIT]);
  });
  await step.step("a cap of 0: no call waits", async () => {
    assert.deepEqual(await fill(0, 2), [LIMIT, LIMIT]);
  });
});

Deno.test("execute: a reply that arrives after its call gave up is not taken by the next call", async () => {
  let release!: () => void;
  const late = new Promise<void>((resolve) => release = resolve);
  let slowEntered = false;
  const registry = new CapabilityRegistry();
  registry.register({
    name: "value.slow",
    summary: "answers when the test says so",
    output: t.fields({ v: t.str() }),
    handler: async () => {
      slowEntered = true;
      await late;
      return { v: "stale" };
    },
  });
  registry.register({
    name: "value.fast",
    summary: "answers at once",
    output: t.fields({ v: t.str() }),
    handler: () => ({ v: "fresh" }),
  });
  const limits = resolveLimits({ maxConcurrentExecutions: 1, maxExecutionMs: 300 });
  const pool = createExecutePool(limits);
  const c = await connect({ registry, limits, pool });
  try {
    // the program's deadline passes while the worker waits for the reply
    assert.equal(errorOf(await c.call("execute", { source: main("return value.slow()") })), LIMIT);
    assert.ok(slowEntered);
    release(); // the stale reply now travels to the same (only) worker
    await late;
    for (let i = 0; i < 3; i++) {
      const r = await c.call("execute", { source: main("return value.fast()['v']") });
      assert.deepEqual(valueOf(r), { result: "fresh" });
    }
  } finally {
    await c.close();
    pool.close();
  }
});

Deno.test("execute: memory-heavy but legal programs still answer", async (step) => {
  const registry = new CapabilityRegistry();
  registry.register({
    name: "blob.make",
    summary: "n bytes of text",
    input: t.fields({ n: t.int() }),
    output: t.fields({ s: t.str() }),
    handler: ({ n }) => ({ s: "x".repeat(n as number) }),
  });
  const limits = resolveLimits({ maxConcurrentExecutions: 2 });
  const pool = createExecutePool(limits);
  const c = await connect({ registry, limits, pool });
  const run = async (body: string) => valueOf(await c.call("execute", { source: main(body) }));
  try {
    await step.step("a dict of 50 000 lists and a string of 800 000 bytes", async () => {
      const body = 'd = {str(i): [i, i] for i in range(50000)}\ns = "ab" * 400000\n' +
        "return len(d) + len(s)";
      assert.deepEqual(await run(body), { result: 850_000 });
    });
    await step.step("a list of 100 000 ints, sorted", async () => {
      assert.deepEqual(
        await run("xs = sorted([(i * 7919) % 100000 for i in range(100000)])\nreturn xs[-1]"),
        { result: 99_999 },
      );
    });
    await step.step("capability results near --max-value-bytes, four of them", async () => {
      const n = (1 << 20) - 64; // {"s":"…"} stays within 1 MiB
      assert.deepEqual(
        await run(`t = 0\nfor i in range(4):\n  t += len(blob.make(n=${n})["s"])\nreturn t`),
        { result: 4 * n },
      );
    });
    await step.step("the same, many times over on the same workers", async () => {
      const body = 'return len(blob.make(n=500000)["s"] + "x" * 400000)';
      const results = await Promise.all(Array.from({ length: 12 }, () => run(body)));
      for (const r of results) assert.deepEqual(r, { result: 900_000 });
    });
  } finally {
    await c.close();
    pool.close();
  }
});
