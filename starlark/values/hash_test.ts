import assert from "node:assert/strict";
import { enter, Thread } from "../thread.ts";
import { dictEntry, dictPut, equals, hashOf } from "./hash.ts";
import { Builtin, Dict, Float, List, Tuple } from "./value.ts";

Deno.test("int and float compare exactly and hash alike", () => {
  assert.ok(equals(123, new Float(123)));
  assert.equal(hashOf(123), hashOf(new Float(123)));
  assert.ok(!equals(9007199254740993n, new Float(9007199254740992)));
  assert.ok(equals(new Float(NaN), new Float(NaN)));
});

Deno.test("tuples hash structurally; lists are unhashable", () => {
  assert.equal(hashOf(new Tuple(["a", 1])), hashOf(new Tuple(["a", new Float(1)])));
  assert.notEqual(hashOf(new Tuple(["a1"])), hashOf(new Tuple(["a", 1])));
  assert.throws(() => hashOf(new List([])), /unhashable type: list/);
});

Deno.test("cyclic comparison fails with the depth limit", () => {
  const l = new List([1]);
  l.elems.push(l);
  assert.throws(() => equals(l, l), /maximum recursion/);
});

Deno.test("dicts are equal when each key finds an equal key with an equal value", () => {
  const a = new Dict(), b = new Dict();
  dictPut(a, new Tuple(["k", 1]), 1);
  dictPut(a, 2, "two");
  dictPut(b, 2, "two");
  dictPut(b, new Tuple(["k", new Float(1)]), new Float(1));
  assert.ok(equals(a, b));
  dictPut(b, 2, "other");
  assert.ok(!equals(a, b));
});

Deno.test("identity hashes are numbered per run, from 1, and stay put within it", () => {
  const fn = () => null;
  const a = new List([]), b = new List([]);
  const method = (recv: List) => new Builtin("m", fn, recv);
  const hashes = [new Thread(), new Thread()].map((th) => {
    const outer = enter(th);
    try {
      const d = new Dict();
      dictPut(d, method(a), 1);
      assert.equal(dictEntry(d, method(a))?.[1], 1);
      assert.equal(dictEntry(d, method(b)), undefined); // receivers compare by identity
      return [hashOf(method(a)), hashOf(method(b)), th.identity(fn), th.identity({})];
    } finally {
      enter(outer);
    }
  });
  assert.deepEqual(hashes[0], hashes[1]);
  assert.deepEqual(hashes[0].slice(2), [1, 2]);
});
