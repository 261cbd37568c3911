import assert from "node:assert/strict";
import { ESCALATE_AFTER, FailureBackoff, failureWaitMs } from "./failure_backoff.ts";

const retry = { initialMs: 1000, maximumMs: 30_000 };

Deno.test("failureWaitMs doubles from retry.initial, reaches retry.maximum, never leaves them", () => {
  const hi = () => 1 - 2 ** -53;
  const lo = () => 0;
  // The high end of each range: initial·2^(k−1), capped; the maximum from the 5th failure on.
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 50].map((k) => failureWaitMs(retry, k, hi)),
    [1000, 2000, 4000, 8000, 30_000, 30_000, 30_000],
  );
  // The low end: half of it, never below initial.
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6].map((k) => failureWaitMs(retry, k, lo)),
    [1000, 1000, 2000, 4000, 15_000, 15_000],
  );
  assert.equal(failureWaitMs(retry, 3), 2000, "the low end without a random source");
  assert.equal(failureWaitMs(retry, 0, hi), 1000, "a count below 1 counts as the first");
  // The cap applies before the 5th failure too.
  const small = { initialMs: 1000, maximumMs: 3000 };
  assert.deepEqual([1, 2, 3, 4].map((k) => failureWaitMs(small, k, hi)), [1000, 2000, 3000, 3000]);
  // initial == maximum: every wait is exactly that.
  const flat = { initialMs: 5000, maximumMs: 5000 };
  for (const k of [1, 2, 5, 9]) assert.equal(failureWaitMs(flat, k, Math.random), 5000);
  // Always within the bounds, whatever the random draw.
  for (let k = 1; k < 12; k++) {
    for (let i = 0; i < 50; i++) {
      const w = failureWaitMs(retry, k, Math.random);
      assert.ok(w >= retry.initialMs && w <= retry.maximumMs, `${k}: ${w}`);
    }
  }
});

Deno.test("FailureBackoff counts failures in a row, escalates once, resets on success", () => {
  const b = new FailureBackoff({ retry });
  assert.ok(b.allows(0));
  const first = b.fail(100);
  assert.deepEqual(first, { failures: 1, waitMs: 1000, retryAt: 1100, escalate: false });
  assert.ok(!b.allows(1099), "below the wait");
  assert.ok(b.allows(1100), "at the wait");
  const escalations = [];
  for (let k = 2; k <= ESCALATE_AFTER + 3; k++) {
    const f = b.fail(0);
    assert.equal(f.failures, k);
    if (f.escalate) escalations.push(k);
  }
  assert.deepEqual(escalations, [ESCALATE_AFTER], "one escalation per run of failures");
  assert.equal(b.retryAt, 15_000, "the maximum's range from then on");
  assert.equal(b.reset(), ESCALATE_AFTER + 3);
  assert.equal(b.reset(), 0, "nothing left to reset");
  assert.ok(b.allows(0));
  assert.equal(b.fail(0).waitMs, 1000, "after a reset the first wait is retry.initial again");
});
