import assert from "node:assert/strict";
import { ScenarioQueue } from "./scenario_queue.ts";

Deno.test("ScenarioQueue.take returns the oldest scenario of the matching issuer once", () => {
  let n = 0;
  const queue = new ScenarioQueue({ randomId: () => `s${++n}` });
  queue.enqueue({ issuer: "a", subject: "first" });
  queue.enqueue({ issuer: "b", subject: "other" });
  queue.enqueue({ issuer: "a", subject: "second" });
  assert.equal(queue.depth, 3);
  assert.equal(queue.take("a")?.subject, "first");
  assert.equal(queue.take("a")?.subject, "second");
  assert.equal(queue.take("a"), undefined);
  assert.deepEqual(queue.list(), [{ id: "s2", scenario: { issuer: "b", subject: "other" } }]);
});

Deno.test("ScenarioQueue.clear empties the queue and reports depth 0", () => {
  const depths: number[] = [];
  const queue = new ScenarioQueue({ onDepth: (d) => depths.push(d) });
  queue.enqueue({ issuer: "a" });
  queue.clear();
  assert.equal(queue.depth, 0);
  assert.deepEqual(depths, [1, 0]);
});

Deno.test("ScenarioQueue keeps an explicit empty audience", () => {
  const queue = new ScenarioQueue();
  queue.enqueue({ issuer: "a", audience: [] });
  assert.deepEqual(queue.take("a")?.audience, []);
});
