import assert from "node:assert/strict";
import {
  issuerIdProblem,
  issuerPath,
  issuerSegment,
  MAX_ISSUER_SEGMENT_LENGTH,
  MAX_ISSUER_SEGMENTS,
} from "./issuer_id.ts";

Deno.test("issuer ids no URL can reach are refused with a reason, in every segment", () => {
  const long = "x".repeat(MAX_ISSUER_SEGMENT_LENGTH + 1);
  const many = Array.from({ length: MAX_ISSUER_SEGMENTS + 1 }, (_, i) => `s${i}`).join("/");
  for (
    const [id, reason] of [
      ["", "issuer must not be empty"],
      [".", "issuer must not have a dot segment"],
      ["..", "issuer must not have a dot segment"],
      ["a/./b", "issuer must not have a dot segment"],
      ["a/..", "issuer must not have a dot segment"],
      ["a//b", "issuer must not have an empty path segment"],
      ["a/", "issuer must not have an empty path segment"],
      ["/a", "issuer must not have an empty path segment"],
      ["_mock", "the issuer prefix _mock is reserved"],
      ["_mockx", "the issuer prefix _mock is reserved"],
      ["realms/_mock", "the issuer prefix _mock is reserved"],
      ["a\u0000b", "issuer must not contain control characters"],
      ["a\nb", "issuer must not contain control characters"],
      ["ok/\u007f", "issuer must not contain control characters"],
      ["\u0085", "issuer must not contain control characters"],
      [long, "issuer path segments must be at most 256 characters"],
      [`realms/${long}`, "issuer path segments must be at most 256 characters"],
      [many, "issuer must have at most 8 path segments"],
    ] as const
  ) {
    assert.equal(issuerIdProblem(id), reason, JSON.stringify(id));
  }
  const segments = (n: number) => Array.from({ length: n }, (_, i) => `s${i}`).join("/");
  const ok = [
    "default",
    "a.b",
    "...",
    "a%b",
    "a?b",
    "a#b",
    "ü",
    "x".repeat(MAX_ISSUER_SEGMENT_LENGTH),
    "x".repeat(MAX_ISSUER_SEGMENT_LENGTH - 1),
    `${"x".repeat(MAX_ISSUER_SEGMENT_LENGTH)}/${"y".repeat(MAX_ISSUER_SEGMENT_LENGTH)}`,
    "realms/x",
    "tenant1/v2.0",
    "a/mock_/b",
    segments(MAX_ISSUER_SEGMENTS - 1),
    segments(MAX_ISSUER_SEGMENTS),
  ];
  for (const id of ok) assert.equal(issuerIdProblem(id), undefined, id);
});

Deno.test("issuerSegment encodes what a path segment cannot carry and round-trips", () => {
  assert.equal(issuerSegment("default"), "default");
  assert.equal(issuerSegment("a%b"), "a%25b");
  assert.equal(issuerSegment("a?b#c d"), "a%3Fb%23c%20d");
  assert.equal(issuerSegment("ü"), "%C3%BC");
  assert.equal(issuerSegment("t:1@x!$&'()*+,;="), "t:1@x!$&'()*+,;=");
  for (const id of ["a%b", "a?b#c d", "ü😀", "%2F"]) {
    assert.equal(decodeURIComponent(issuerSegment(id)), id);
    // A URL parser leaves the segment as it is: the issuer URL is stable.
    assert.equal(new URL(`http://h/${issuerSegment(id)}`).pathname, `/${issuerSegment(id)}`);
  }
});

Deno.test("issuerPath encodes each segment and keeps the separators", () => {
  assert.equal(issuerPath("tenant1/v2.0"), "tenant1/v2.0");
  assert.equal(issuerPath("realms/a b/c?"), "realms/a%20b/c%3F");
  assert.equal(new URL(`http://h/${issuerPath("realms/ü")}`).pathname, "/realms/%C3%BC");
});
