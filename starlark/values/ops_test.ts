import assert from "node:assert/strict";
import { compare } from "./ops.ts";
import { Float, List, Tuple } from "./value.ts";

Deno.test("NaN sorts after every float", () => {
  assert.ok(compare("<", new Float(NaN), new Float(Infinity)) > 0);
});

Deno.test("ordering of nested containers stops at the depth limit", () => {
  let a: List | Tuple = new List([1]), b: List | Tuple = new List([1]);
  for (let i = 0; i < 12; i++) [a, b] = [new Tuple([a]), new Tuple([b])];
  assert.throws(() => compare("<", a, b), /maximum recursion/);
});
