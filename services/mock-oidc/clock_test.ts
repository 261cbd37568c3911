import assert from "node:assert/strict";
import { createClock } from "./clock.ts";

Deno.test("clock follows the wall clock until frozen", () => {
  let wall = 1_000;
  const clock = createClock({ now: () => wall });
  assert.equal(clock.now(), 1_000);
  wall = 2_000;
  assert.deepEqual(clock.state(), { frozen: false, now: new Date(2_000) });
  clock.freeze(5_000);
  wall = 9_000;
  assert.equal(clock.now(), 5_000);
  clock.unfreeze();
  assert.equal(clock.now(), 9_000);
});

Deno.test("advance freezes at now and moves forward", () => {
  const clock = createClock({ now: () => 10_000 });
  clock.advance(90_000);
  assert.deepEqual(clock.state(), { frozen: true, now: new Date(100_000) });
  clock.advance(1);
  assert.equal(clock.now(), 100_001);
});

Deno.test("frozenAt option starts frozen", () => {
  const at = Date.parse("2020-01-21T00:00:00Z");
  const clock = createClock({ frozenAt: at });
  assert.equal(clock.state().frozen, true);
  assert.equal(clock.now(), at);
  assert.throws(() => clock.freeze(NaN), RangeError);
});
