import assert from "node:assert/strict";
import { compare, equals } from "./ops.ts";
import { hashOf as hashKey } from "./hash.ts";
import { Float, List, Tuple } from "./value.ts";

Deno.test("int and float compare exactly and hash alike", () => {
  assert.ok(equals(123, new Float(123)));
  assert.equal(hashKey(123), hashKey(new Float(123)));
  assert.ok(!equals(9007199254740993n, new Float(9007199254740992)));
  assert.ok(compare("<", new Float(NaN), new Float(Infinity)) > 0); // NaN sorts last
  assert.ok(equals(new Float(NaN), new Float(NaN)));
});

Deno.test("tuples hash structurally; lists are unhashable", () => {
  assert.equal(hashKey(new Tuple(["a", 1])), hashKey(new Tuple(["a", new Float(1)])));
  assert.notEqual(hashKey(new Tuple(["a1"])), hashKey(new Tuple(["a", 1])));
  assert.throws(() => hashKey(new List([])), /unhashable type: list/);
});

Deno.test("cyclic comparison fails with the depth limit", () => {
  const l = new List([1]);
  l.elems.push(l);
  assert.throws(() => equals(l, l), /maximum recursion/);
});
