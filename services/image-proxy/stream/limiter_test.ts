import assert from "node:assert/strict";
import { createStreamLimiter, type StreamSlot } from "./limiter.ts";

Deno.test("createStreamLimiter() admits up to max and refuses the next at once", async (t) => {
  const max = 64;
  const limiter = createStreamLimiter(max);
  const slots: (StreamSlot | null)[] = [];
  await t.step("below the limit", () => {
    for (let i = 0; i < max - 1; i++) slots.push(limiter.tryAcquire());
    assert.ok(slots.every((s) => s !== null));
    assert.equal(limiter.active, max - 1);
  });
  await t.step("at the limit", () => {
    slots.push(limiter.tryAcquire());
    assert.notEqual(slots.at(-1), null);
    assert.equal(limiter.active, max);
  });
  await t.step("above the limit", () => {
    assert.equal(limiter.tryAcquire(), null);
    assert.equal(limiter.active, max);
  });
  await t.step("a released slot is available again", () => {
    slots.pop()!.release();
    assert.notEqual(limiter.tryAcquire(), null);
  });
});

Deno.test("StreamSlot.release() is idempotent", () => {
  const limiter = createStreamLimiter(2);
  const a = limiter.tryAcquire()!;
  limiter.tryAcquire();
  a.release();
  a.release();
  assert.equal(limiter.active, 1);
});

Deno.test("StreamLimiter.idle() resolves when the last slot is released", async () => {
  const limiter = createStreamLimiter(2);
  await limiter.idle();
  const a = limiter.tryAcquire()!;
  const b = limiter.tryAcquire()!;
  let idle = false;
  const waiting = limiter.idle().then(() => idle = true);
  a.release();
  await Promise.resolve();
  assert.equal(idle, false);
  b.release();
  await waiting;
  assert.equal(idle, true);
});

Deno.test("createStreamLimiter() refuses a limit that is not a positive integer", () => {
  for (const bad of [0, -1, 1.5, NaN]) {
    assert.throws(() => createStreamLimiter(bad), RangeError);
  }
});
