import assert from "node:assert/strict";
import { nextTry } from "./controller.ts";

const retry = { initialMs: 1000, maximumMs: 30_000 };

Deno.test("nextTry() backs off exponentially, capped, exact without a random source", () => {
  assert.deepEqual(
    [0, 1, 2, 4, 5, 6, 40].map((attempt) => nextTry(100, retry, attempt) - 100),
    [1000, 2000, 4000, 16_000, 30_000, 30_000, 30_000],
  );
});

Deno.test("nextTry() draws each wait from [backoff/2, backoff] with a random source", () => {
  assert.equal(nextTry(0, retry, 2, () => 0), 2000);
  assert.equal(nextTry(0, retry, 2, () => 0.5), 3000);
  assert.ok(nextTry(0, retry, 2, () => 0.999_999) <= 4000);
  // runners that failed together spread out instead of retrying together
  const waits = new Set(Array.from({ length: 20 }, () => nextTry(0, retry, 3, Math.random)));
  assert.ok(waits.size > 1);
  for (const w of waits) assert.ok(w >= 4000 && w <= 8000, String(w));
});
