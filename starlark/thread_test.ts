import assert from "node:assert/strict";
import { LimitError } from "./errors.ts";
import { Thread } from "./thread.ts";

Deno.test("the step budget fails on the first step past maxSteps", () => {
  const th = new Thread({ maxSteps: 10 });
  for (let i = 0; i < 10; i++) th.step();
  assert.throws(() => th.step(), (e) => e instanceof LimitError && e.code === "max_steps");
});

Deno.test("charges count against the step budget and the clock is read while stepping", () => {
  assert.throws(() => new Thread({ maxSteps: 100 }).charge(101), /too many steps/);
  let now = 0;
  const th = new Thread({ timeoutMs: 5, now: () => now });
  th.charge(1000);
  now = 10;
  assert.throws(() => th.charge(5000), (e) => e instanceof LimitError && e.code === "timeout");
});

Deno.test("checkAlloc refuses sizes past maxBytes", () => {
  const th = new Thread({ maxBytes: 100 });
  th.checkAlloc(100);
  assert.throws(() => th.checkAlloc(101), (e) => e instanceof LimitError && e.code === "max_bytes");
});

Deno.test("the allocation meter: cumulative, unless a heap probe shows the bytes were freed", () => {
  const plain = new Thread({ maxAllocBytes: 1000 });
  plain.alloc(1000);
  assert.throws(() => plain.alloc(1), (e) => e instanceof LimitError && e.code === "max_alloc");
  let live = 100;
  let probes = 0;
  const probed = new Thread({ maxAllocBytes: 1000, heapUsed: () => (probes++, live) });
  probed.alloc(1000);
  assert.equal(probes, 0); // at the budget: no probe yet
  probed.alloc(1); // past it: the probe says 100 bytes are live, so the run goes on
  assert.equal(probes, 1);
  assert.equal(probed.allocated, 500); // the meter restarts at max(live, budget / 2)
  probed.build(499);
  assert.equal(probes, 1);
  live = 1001; // now the heap really holds more than the budget
  assert.throws(() => probed.build(2), (e) => e instanceof LimitError && e.code === "max_alloc");
  assert.equal(probes, 2);
  live = 1000; // at the budget is still within it
  const at = new Thread({ maxAllocBytes: 1000, heapUsed: () => live });
  at.alloc(1001);
  assert.equal(at.allocated, 1000);
  live = 1001;
  assert.throws(() => at.alloc(1), /allocation budget of 1000 bytes exceeded/);
});
