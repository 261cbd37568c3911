import assert from "node:assert/strict";
import { BoundedMap } from "./bounded_map.ts";

Deno.test("BoundedMap keeps max entries and forgets the oldest beyond", () => {
  const map = new BoundedMap<string, number>(2);
  map.set("a", 1);
  assert.deepEqual([...map.keys()], ["a"]); // below the bound
  map.set("b", 2);
  assert.deepEqual([...map.keys()], ["a", "b"]); // at the bound
  map.set("c", 3);
  assert.deepEqual([...map.entries()], [["b", 2], ["c", 3]]); // above: the oldest goes
  map.set("b", 4); // an update is no new entry: nothing goes
  assert.deepEqual([...map.entries()], [["b", 4], ["c", 3]]);
});
