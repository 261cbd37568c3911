import assert from "node:assert/strict";
import { HttpError } from "@svc/shared/problem";
import {
  evaluatePreconditions,
  type PreconditionOutcome,
  rangeAllowed,
  readConditions,
} from "./preconditions.ts";

const ETAG = '"abc"';
const MODIFIED = Date.UTC(2025, 7, 24, 13, 0, 0) / 1000; // Sun, 24 Aug 2025 13:00:00 GMT
const AT = "Sun, 24 Aug 2025 13:00:00 GMT";
const BEFORE = "Sun, 24 Aug 2025 12:59:59 GMT";
const AFTER = "Sun, 24 Aug 2025 13:00:01 GMT";
const validators = { etag: ETAG, lastModified: MODIFIED };

function outcome(headers: Record<string, string>): PreconditionOutcome {
  return evaluatePreconditions(readConditions(new Headers(headers)), validators);
}

Deno.test("evaluatePreconditions() follows RFC 9110 §13.2.2", async (t) => {
  const cases: [string, Record<string, string>, PreconditionOutcome][] = [
    ["no conditions", {}, "proceed"],
    ["If-Match equal", { "if-match": ETAG }, "proceed"],
    ["If-Match in a list", { "if-match": '"x", "abc"' }, "proceed"],
    ["If-Match *", { "if-match": "*" }, "proceed"],
    ["If-Match different", { "if-match": '"x"' }, "precondition_failed"],
    ["If-Match weak (strong comparison)", { "if-match": 'W/"abc"' }, "precondition_failed"],
    ["If-Unmodified-Since at", { "if-unmodified-since": AT }, "proceed"],
    ["If-Unmodified-Since after", { "if-unmodified-since": AFTER }, "proceed"],
    ["If-Unmodified-Since before", { "if-unmodified-since": BEFORE }, "precondition_failed"],
    [
      "If-Match wins over If-Unmodified-Since",
      { "if-match": ETAG, "if-unmodified-since": BEFORE },
      "proceed",
    ],
    ["If-None-Match equal", { "if-none-match": ETAG }, "not_modified"],
    ["If-None-Match weak (weak comparison)", { "if-none-match": 'W/"abc"' }, "not_modified"],
    ["If-None-Match *", { "if-none-match": "*" }, "not_modified"],
    ["If-None-Match different", { "if-none-match": '"x"' }, "proceed"],
    ["If-Modified-Since at", { "if-modified-since": AT }, "not_modified"],
    ["If-Modified-Since after", { "if-modified-since": AFTER }, "not_modified"],
    ["If-Modified-Since before", { "if-modified-since": BEFORE }, "proceed"],
    [
      "If-None-Match wins over If-Modified-Since (differs)",
      { "if-none-match": '"x"', "if-modified-since": AT },
      "proceed",
    ],
    [
      "If-None-Match wins over If-Modified-Since (matches)",
      { "if-none-match": ETAG, "if-modified-since": BEFORE },
      "not_modified",
    ],
    [
      "412 before 304",
      { "if-match": '"x"', "if-none-match": ETAG },
      "precondition_failed",
    ],
    [
      "If-Unmodified-Since fails before If-None-Match",
      { "if-unmodified-since": BEFORE, "if-none-match": ETAG },
      "precondition_failed",
    ],
    [
      "If-Match passes, If-None-Match matches",
      { "if-match": ETAG, "if-none-match": ETAG },
      "not_modified",
    ],
  ];
  for (const [name, headers, want] of cases) {
    await t.step(name, () => assert.equal(outcome(headers), want));
  }
  await t.step("no validators: date conditions are ignored, tag conditions fail closed", () => {
    const c = readConditions(
      new Headers({ "if-unmodified-since": BEFORE, "if-modified-since": AT }),
    );
    assert.equal(evaluatePreconditions(c, {}), "proceed");
    assert.equal(
      evaluatePreconditions(readConditions(new Headers({ "if-match": ETAG })), {}),
      "precondition_failed",
    );
  });
});

Deno.test("readConditions() refuses malformed conditional headers with 400 invalid_input", async (t) => {
  const cases: [string, string][] = [
    ["If-Match", "abc"],
    ["If-Match", '"abc" "def"'],
    ["If-Match", '*, "a"'],
    ["If-Match", ""],
    ["If-None-Match", "abc"],
    ["If-None-Match", 'W/ "a"'],
    ["If-Modified-Since", "yesterday"],
    ["If-Modified-Since", "2025-08-24T13:00:00Z"],
    ["If-Modified-Since", `${AT}, ${AT}`],
    ["If-Unmodified-Since", "0"],
    ["If-Unmodified-Since", "Sun, 24 Aug 2025 13:00:00 UTC"],
  ];
  for (const [name, value] of cases) {
    await t.step(`${name}: ${value}`, () => {
      assert.throws(() => readConditions(new Headers({ [name]: value })), (e: unknown) => {
        assert.ok(e instanceof HttpError);
        assert.equal(e.status, 400);
        assert.equal(e.code, "invalid_input");
        assert.match(e.message, new RegExp(name));
        return true;
      });
    });
  }
  await t.step("a malformed If-Range is not an error (it just does not match)", () => {
    assert.equal(readConditions(new Headers({ "if-range": "garbage" })).ifRange, "garbage");
  });
});

Deno.test("rangeAllowed() evaluates If-Range per RFC 9110 §13.1.5", async (t) => {
  const cases: [string, string | undefined, boolean][] = [
    ["absent", undefined, true],
    ["strong tag equal", ETAG, true],
    ["strong tag different", '"x"', false],
    ["weak tag never matches", 'W/"abc"', false],
    ["exact date", AT, true],
    ["date before", BEFORE, false],
    ["date after", AFTER, false],
    ["garbage", "garbage", false],
    ["unterminated tag", '"abc', false],
    ["tag list", `${ETAG}, "x"`, false],
  ];
  for (const [name, value, want] of cases) {
    await t.step(name, () => {
      const c = readConditions(new Headers(value === undefined ? {} : { "if-range": value }));
      assert.equal(rangeAllowed(c, validators), want);
    });
  }
  await t.step("no validators", () => {
    assert.equal(rangeAllowed({ ifRange: ETAG }, {}), false);
    assert.equal(rangeAllowed({ ifRange: AT }, {}), false);
  });
});
