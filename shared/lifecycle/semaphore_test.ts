import assert from "node:assert/strict";
import { Semaphore } from "./semaphore.ts";

Deno.test("Semaphore runs at most `limit` tasks at once, in arrival order, and frees slots on failure", async () => {
  for (const limit of [1, 2, 3]) {
    const sem = new Semaphore(limit);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const tasks = Array.from({ length: 8 }, (_, i) =>
      sem.run(async () => {
        started.push(i);
        running++;
        most = Math.max(most, running);
        // real clock: a task that holds its slot a while, so the others queue
        await new Promise((r) => setTimeout(r, 5));
        running--;
        if (i === 2) throw new Error("task failed");
        return i;
      }));
    const results = await Promise.allSettled(tasks);
    assert.equal(most, limit);
    assert.equal(sem.peak, limit);
    assert.deepEqual(started, [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.equal(results.filter((r) => r.status === "rejected").length, 1);
    // Every slot is free again: `limit` new tasks start at once.
    let now = 0;
    await Promise.all(
      Array.from({ length: limit }, () => sem.run(() => Promise.resolve(void now++))),
    );
    assert.equal(now, limit);
  }
});

Deno.test("Semaphore returns each task's result; the first `limit` start first", async () => {
  const slots = new Semaphore(2);
  let running = 0;
  let peak = 0;
  const order: number[] = [];
  const task = (id: number) =>
    slots.run(async () => {
      running++;
      peak = Math.max(peak, running);
      // real clock: a task that holds its slot a while, so the others queue
      await new Promise((resolve) => setTimeout(resolve, 5));
      order.push(id);
      running--;
      return id;
    });
  const results = await Promise.all([1, 2, 3, 4, 5].map(task));
  assert.deepEqual(results, [1, 2, 3, 4, 5]);
  assert.equal(peak, 2);
  assert.deepEqual(order.slice(0, 2).sort(), [1, 2]);
});

Deno.test("Semaphore: a failing task frees its slot", async () => {
  const slots = new Semaphore(1);
  await assert.rejects(slots.run(() => Promise.reject(new Error("boom"))));
  assert.equal(await slots.run(() => Promise.resolve(7)), 7);
});
