import assert from "node:assert/strict";
import { createSignSlots } from "./sign_slots.ts";

Deno.test("sign slots admit at most `limit` tasks at once, in arrival order", async () => {
  const slots = createSignSlots(2);
  let running = 0;
  let peak = 0;
  const order: number[] = [];
  const task = (id: number) =>
    slots.run(async () => {
      running++;
      peak = Math.max(peak, running);
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

Deno.test("a failing task frees its slot", async () => {
  const slots = createSignSlots(1);
  await assert.rejects(slots.run(() => Promise.reject(new Error("boom"))));
  assert.equal(await slots.run(() => Promise.resolve(7)), 7);
});
