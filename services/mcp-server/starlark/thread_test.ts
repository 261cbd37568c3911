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
