import assert from "node:assert/strict";
import { DEFAULT_LIMITS, resolveLimits } from "./limits.ts";
import { memoryBound } from "./memory_bound.ts";

const MiB = 1 << 20;

Deno.test("memoryBound: the README's figure for the defaults", () => {
  const b = memoryBound(DEFAULT_LIMITS);
  assert.deepEqual(
    {
      base: b.base / MiB,
      workers: b.workers / MiB,
      replies: b.replies / MiB,
      queued: b.queued / MiB,
    },
    { base: 384, workers: 960, replies: 12, queued: 128 },
  );
  assert.equal(b.total / MiB, 1484);
});

Deno.test("memoryBound: grows with each setting it names", () => {
  const at = (l: Parameters<typeof resolveLimits>[0]) => memoryBound(resolveLimits(l)).total / MiB;
  assert.equal(at({ maxConcurrentExecutions: 1 }), 384 + 240 + 3 + 128);
  assert.equal(at({ maxQueuedExecutions: 0 }), 1484 - 128);
  assert.equal(at({ workerHeapMb: 64 }), 1484 - 4 * (128 + 16));
  assert.equal(at({ maxSourceBytes: 128 << 10 }), 1484 + 64);
});
