import assert from "node:assert/strict";
import { jsonContentTypeProblem } from "./content_type.ts";

Deno.test("JSON content types in UTF-8 are accepted, however spelled", () => {
  for (
    const ok of [
      "application/json",
      "APPLICATION/JSON",
      "application/json; charset=utf-8",
      "application/json;charset=UTF-8",
      'application/json; charset="utf-8"',
      'application/json; Charset="UTF-8"',
      "application/json ; charset=utf-8 ; foo=bar",
      "application/merge-patch+json",
      "application/problem+json; charset=utf-8",
    ]
  ) assert.equal(jsonContentTypeProblem(ok), undefined, ok);
});

Deno.test("missing and empty Content-Type are the same 415", () => {
  assert.equal(jsonContentTypeProblem(null), "expected Content-Type: application/json");
  assert.equal(jsonContentTypeProblem(""), "expected Content-Type: application/json");
  assert.equal(jsonContentTypeProblem("  "), "expected Content-Type: application/json");
});

Deno.test("any charset but UTF-8 is refused, quoted or not", () => {
  for (
    const bad of [
      "application/json; charset=utf-16",
      "application/json;charset=UTF-16",
      'application/json; charset="UTF-16LE"',
      "application/json; charset=iso-8859-1",
      "application/json; charset=utf8",
      "application/json; charset=",
      'application/json; charset="utf-8',
    ]
  ) assert.match(jsonContentTypeProblem(bad) ?? "", /charset|parameters/, bad);
});

Deno.test("other media types and malformed parameters are refused", () => {
  for (
    const bad of [
      "text/plain",
      "application/jsonx",
      "application/x-www-form-urlencoded",
      "application/json garbage",
      "application/json;",
      "application/json; charset",
      "json",
    ]
  ) assert.notEqual(jsonContentTypeProblem(bad), undefined, bad);
});
