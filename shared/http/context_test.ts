import assert from "node:assert/strict";
import { createContextKey, ensureContext, getContext, setContext } from "./context.ts";

Deno.test("context: a set value reads back by its key, typed", () => {
  const COUNT = createContextKey<number>("count");
  const req = new Request("http://x/");
  assert.equal(getContext(req, COUNT), undefined);
  setContext(req, COUNT, 3);
  const n: number | undefined = getContext(req, COUNT);
  assert.equal(n, 3);
  setContext(req, COUNT, 4);
  assert.equal(getContext(req, COUNT), 4);
});

Deno.test("context: keys are distinct by identity, not by name", () => {
  const a = createContextKey<string>("same");
  const b = createContextKey<string>("same");
  const req = new Request("http://x/");
  setContext(req, a, "a");
  assert.equal(getContext(req, a), "a");
  assert.equal(getContext(req, b), undefined);
  assert.equal(a.name, "same");
});

Deno.test("context: each request has its own values", () => {
  const KEY = createContextKey<string>("k");
  const one = new Request("http://x/1");
  const two = new Request("http://x/2");
  setContext(one, KEY, "one");
  assert.equal(getContext(two, KEY), undefined);
  setContext(two, KEY, "two");
  assert.equal(getContext(one, KEY), "one");
  // A request made from another one starts empty: its state belongs to the original.
  assert.equal(getContext(new Request(one), KEY), undefined);
});

Deno.test("context: ensureContext initializes once and returns the same value", () => {
  const NOTE = createContextKey<{ hits: number }>("note");
  const req = new Request("http://x/");
  let inits = 0;
  const init = () => {
    inits++;
    return { hits: 0 };
  };
  ensureContext(req, NOTE, init).hits++;
  ensureContext(req, NOTE, init).hits++;
  assert.equal(inits, 1);
  assert.equal(getContext(req, NOTE)?.hits, 2);
  // A stored undefined counts as set.
  const MAYBE = createContextKey<string | undefined>("maybe");
  setContext(req, MAYBE, undefined);
  assert.equal(ensureContext(req, MAYBE, () => "x"), undefined);
});

Deno.test("context: leaves no enumerable property on the request", () => {
  const KEY = createContextKey<number>("k");
  const req = new Request("http://x/");
  setContext(req, KEY, 1);
  assert.deepEqual(Object.keys(req), []);
});

Deno.test("context: many keys on one request each keep their own value, replaced in place", () => {
  const keys = Array.from({ length: 9 }, (_, i) => createContextKey<number>(`k${i}`));
  const req = new Request("http://x/");
  keys.forEach((k, i) => setContext(req, k, i));
  setContext(req, keys[4], 40);
  setContext(req, keys[0], 10);
  setContext(req, keys[8], 80);
  assert.deepEqual(keys.map((k) => getContext(req, k)), [10, 1, 2, 3, 40, 5, 6, 7, 80]);
  assert.equal(getContext(req, createContextKey<number>("k4")), undefined);
  // ensureContext whose init sets other keys (and its own) on the same request: init's value wins.
  const OUTER = createContextKey<string>("outer");
  const INNER = createContextKey<string>("inner");
  const got = ensureContext(req, OUTER, () => {
    setContext(req, INNER, "inner");
    setContext(req, OUTER, "early");
    return "init";
  });
  assert.equal(got, "init");
  assert.equal(getContext(req, OUTER), "init");
  assert.equal(getContext(req, INNER), "inner");
  assert.equal(getContext(req, keys[1]), 1);
});
