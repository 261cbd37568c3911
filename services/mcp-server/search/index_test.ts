import assert from "node:assert/strict";
import { CapabilityRegistry } from "../capabilities/registry.ts";
import { requiredMatches, SearchIndex } from "./index.ts";
import { normalizeQuery, trimWhiteSpace } from "./tokens.ts";

function index(defs: Array<[string, string, string?, string[]?]>, disabled: string[] = []) {
  const registry = new CapabilityRegistry();
  for (const [name, summary, description, searchTerms] of defs) {
    registry.register({ name, summary, description, searchTerms, handler: () => ({}) });
  }
  for (const name of disabled) registry.setEnabled(name, false);
  return new SearchIndex(registry.enabled());
}

function names(ix: SearchIndex, query: string): string[] {
  return ix.rank(normalizeQuery(query, 1024), trimWhiteSpace(query)).map((r) => r.capability.name);
}

Deno.test("requiredMatches follows the eligibility table", () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 16].map(requiredMatches), [1, 2, 2, 3, 4, 4, 5, 11]);
});

Deno.test("exact and prefix matching; no infix, no prefix under three characters", () => {
  const ix = index([["records.lookup", "Find one record"], ["users.get", "Get a user"]]);
  assert.deepEqual(names(ix, "lookup"), ["records.lookup"]);
  assert.deepEqual(names(ix, "look"), ["records.lookup"]); // prefix of 4
  assert.deepEqual(names(ix, "loo"), ["records.lookup"]); // prefix of 3
  assert.deepEqual(names(ix, "lo"), []); // too short for prefix
  assert.deepEqual(names(ix, "ookup"), []); // infix unsupported
  assert.deepEqual(names(ix, "lookups"), []); // no stemming
  assert.deepEqual(names(ix, "fetch"), []); // no synonyms
});

Deno.test("eligibility: two tokens need both, three need two, six need four", () => {
  const ix = index([
    ["a.alpha", "alpha beta gamma"],
    ["b.beta", "beta only"],
    ["c.delta", "delta epsilon zeta eta theta"],
  ]);
  assert.deepEqual(names(ix, "alpha beta"), ["a.alpha"]);
  assert.deepEqual(names(ix, "beta gamma nothing"), ["a.alpha"]);
  assert.deepEqual(names(ix, "beta nothing other"), []);
  assert.deepEqual(names(ix, "delta epsilon zeta eta x y"), ["c.delta"]);
  assert.deepEqual(names(ix, "delta epsilon zeta x y z"), []);
});

Deno.test("field precedence: name beats search terms beats summary beats description", () => {
  const ix = index([
    ["d.one", "nothing", "widget in the description"],
    ["c.two", "a widget summary"],
    ["b.three", "x", undefined, ["widget"]],
    ["a.widget", "y"],
  ]);
  assert.deepEqual(names(ix, "widget"), ["a.widget", "b.three", "c.two", "d.one"]);
});

Deno.test("exact match outranks prefix match in the same field", () => {
  const ix = index([["a.items", "z"], ["b.item", "z"]]);
  assert.deepEqual(names(ix, "item"), ["b.item", "a.items"]);
});

Deno.test("rarer tokens weigh more", () => {
  const ix = index([
    ["a.x", "common rare"],
    ["b.x", "common"],
    ["c.x", "common"],
    ["d.x", "common unusual"],
    ["e.x", "common"],
  ]);
  // both docs match 2 of 3 tokens; "rare" (df=1) vs "common" only for others
  assert.deepEqual(names(ix, "common rare"), ["a.x"]);
  const ranked = ix.rank(["common", "rare", "unusual"], "");
  assert.deepEqual(ranked.map((r) => r.capability.name), ["a.x", "d.x"]);
  assert.equal(ranked[0].score, ranked[1].score); // same rarity, then name ascending
});

Deno.test("exact dotted-name query ranks first, case-insensitively; ties by name", () => {
  const ix = index([
    ["records.lookup", "lookup records lookup"],
    ["records.lookup_all", "records lookup lookup records"],
    ["aaa.records", "records lookup"],
  ]);
  const got = names(ix, "  Records.Lookup ");
  assert.equal(got[0], "records.lookup");
  assert.deepEqual(got.slice(1).sort(), ["aaa.records", "records.lookup_all"]);
});

Deno.test("disabled capabilities neither match nor affect rarity or ranking", () => {
  const defs: Array<[string, string]> = [["a.x", "shared rare"], ["b.x", "shared"], [
    "c.x",
    "rare",
  ]];
  const off = index([...defs, ["d.x", "shared"], ["e.x", "rare rare"]], ["d.x", "e.x"]);
  const absent = index(defs);
  assert.deepEqual(names(off, "shared"), ["a.x", "b.x"]);
  for (const q of [["shared"], ["rare"], ["shared", "rare"]]) {
    assert.deepEqual(
      off.rank(q, "").map((r) => [r.capability.name, r.score]),
      absent.rank(q, "").map((r) => [r.capability.name, r.score]),
    );
  }
  assert.deepEqual(names(off, "d.x"), []);
});

Deno.test("exact dotted name after Unicode White_Space trimming: U+0085 trimmed, U+FEFF not", () => {
  // equal scores: without the exact-name rule, name order puts items.records first
  const ix = index([["records.items", "x"], ["items.records", "x"]]);
  assert.deepEqual(names(ix, "records.items"), ["records.items", "items.records"]);
  assert.deepEqual(names(ix, "\u0085records.items\u0085"), ["records.items", "items.records"]);
  assert.deepEqual(names(ix, "\u2028RECORDS.items\u3000"), ["records.items", "items.records"]);
  // U+FEFF is not White_Space: the query is not exactly the name, plain relevance order applies
  assert.deepEqual(names(ix, "\ufeffrecords.items"), ["items.records", "records.items"]);
  assert.deepEqual(names(ix, "records.items\ufeff"), ["items.records", "records.items"]);
});
