import assert from "node:assert/strict";
import {
  MAX_MATCHED_LENGTH,
  MAX_PATTERN_LENGTH,
  MAX_QUANTIFIERS,
  patternProblem,
} from "./safe_pattern.ts";
import { findMapping } from "./request_mappings.ts";

Deno.test("catastrophic pattern shapes are refused with a reason", () => {
  for (
    const pattern of [
      "(a+)+$",
      "(a*)*",
      "(a|aa)+",
      "(a|a)*b",
      "(\\w+\\s?)*$",
      "((ab)+)+",
      "(a?)+",
      "(?:x+y)*",
      "(a+){2,}",
      "(a+){2,5}",
      "(.*a){12}",
    ]
  ) {
    assert.match(patternProblem(pattern) ?? "", /repeated group/, pattern);
  }
  assert.equal(patternProblem("(a)\\1"), "backreferences are not allowed");
  assert.equal(patternProblem("(?<n>a)\\k<n>"), "backreferences are not allowed");
  for (const p of ["a(?=b)", "a(?!b)", "(?<=a)b", "(?<!a)b"]) {
    assert.equal(patternProblem(p), "lookarounds are not allowed", p);
  }
});

Deno.test("ordinary patterns pass", () => {
  for (
    const pattern of [
      "*",
      "exact-value",
      "client-[0-9]+",
      "(ab)+",
      "(a|b)?",
      "a+b*c?",
      "[(+*)]+",
      "(?<name>abc)+",
      "\\(a+\\)+",
      "(a+)?",
      "x{2}",
      "(ab){3}",
      "[unclosed", // not a regex: exact match, as upstream
    ]
  ) {
    assert.equal(patternProblem(pattern), undefined, pattern);
  }
});

Deno.test("length and quantifier bounds: at, just below and just above", () => {
  assert.equal(patternProblem("a".repeat(MAX_PATTERN_LENGTH)), undefined);
  assert.match(patternProblem("a".repeat(MAX_PATTERN_LENGTH + 1)) ?? "", /longer than/);
  assert.equal(patternProblem("a+".repeat(MAX_QUANTIFIERS)), undefined);
  assert.equal(patternProblem("a+".repeat(MAX_QUANTIFIERS - 1)), undefined);
  assert.match(patternProblem("a+".repeat(MAX_QUANTIFIERS + 1)) ?? "", /quantifiers/);
});

Deno.test("values longer than MAX_MATCHED_LENGTH are not run against a regex", () => {
  const mapping = { param: "p", match: "a+" };
  const input = (v: string) => ({ params: new URLSearchParams({ p: v }), clientId: "c" });
  assert.ok(findMapping([mapping], input("a".repeat(MAX_MATCHED_LENGTH))));
  assert.equal(findMapping([mapping], input("a".repeat(MAX_MATCHED_LENGTH + 1))), undefined);
  // exact and * still match long values
  const long = "b".repeat(MAX_MATCHED_LENGTH + 5);
  assert.ok(findMapping([{ param: "p", match: long }], input(long)));
  assert.ok(findMapping([{ param: "p", match: "*" }], input(long)));
});

Deno.test("a refused pattern never runs: findMapping treats it as an exact value", () => {
  const input = { params: new URLSearchParams({ p: "a".repeat(30) + "!" }), clientId: "c" };
  const started = performance.now();
  assert.equal(findMapping([{ param: "p", match: "(a+)+$" }], input), undefined);
  assert.ok(performance.now() - started < 1000);
});
