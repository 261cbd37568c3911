import assert from "node:assert/strict";
import { concurrentSteps } from "./concurrent_steps.ts";
import { nextTurn, waitUntil } from "./wait_until.ts";

Deno.test("concurrentSteps runs every item as a step, never more than `concurrency` at once", async (t) => {
  const started: number[] = [];
  let running = 0;
  let peak = 0;
  const release = new Map<number, () => void>();
  const items = [1, 2, 3, 4, 5];
  const all = concurrentSteps(t, items, { concurrency: 2, name: (n) => `item ${n}` }, (n) => {
    started.push(n);
    running++;
    peak = Math.max(peak, running);
    return new Promise<void>((resolve) =>
      release.set(n, () => {
        running--;
        resolve();
      })
    );
  });
  // Two start at once; each one that ends lets exactly the next one start, in order.
  await waitUntil(() => started.length === 2, { what: "two steps" });
  for (const n of items) {
    await nextTurn();
    assert.deepEqual(started, items.slice(0, Math.min(n + 1, items.length)));
    release.get(n)!();
    if (n + 2 <= items.length) {
      await waitUntil(() => started.length === n + 2, { what: `step ${n + 2}` });
    }
  }
  await all;
  assert.deepEqual(started, items);
  assert.equal(peak, 2);
  assert.equal(running, 0);
});

Deno.test("concurrentSteps with concurrency 1 runs the items one after another", async (t) => {
  const order: string[] = [];
  await concurrentSteps(t, ["a", "b", "c"], { concurrency: 1, name: (s) => s }, async (s) => {
    order.push(`start ${s}`);
    await Promise.resolve();
    order.push(`end ${s}`);
  });
  assert.deepEqual(order, ["start a", "end a", "start b", "end b", "start c", "end c"]);
});

Deno.test("concurrentSteps hands each step its own context and runs nothing for no items", async (t) => {
  const names: string[] = [];
  await concurrentSteps(t, ["x", "y"], { concurrency: 4, name: (s) => `step ${s}` }, (_, st) => {
    names.push(st.name);
  });
  assert.deepEqual(names.sort(), ["step x", "step y"]);
  let ran = false;
  await concurrentSteps(t, [], { concurrency: 3, name: String }, () => {
    ran = true;
  });
  assert.equal(ran, false);
});

Deno.test("concurrentSteps refuses a concurrency below 1", async (t) => {
  for (const concurrency of [0, -1, NaN]) {
    await assert.rejects(
      concurrentSteps(t, [1], { concurrency, name: String }, () => {}),
      new RangeError(`Cannot run steps: concurrency ${concurrency} is below 1`),
    );
  }
});
