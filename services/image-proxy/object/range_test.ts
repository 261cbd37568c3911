import assert from "node:assert/strict";
import { contentRange, parseRange, type RangeRequest } from "./range.ts";

const none: RangeRequest = { kind: "none" };
const unsatisfiable: RangeRequest = { kind: "unsatisfiable" };
const range = (start: number, end: number): RangeRequest => ({ kind: "range", start, end });

Deno.test("parseRange() serves one bytes range", async (t) => {
  const cases: [string, number, RangeRequest][] = [
    ["bytes=0-9", 100, range(0, 9)],
    ["bytes=0-0", 100, range(0, 0)],
    ["bytes=0-", 100, range(0, 99)],
    ["bytes=0-99", 100, range(0, 99)],
    ["bytes=0-100", 100, range(0, 99)],
    ["bytes=0-98", 100, range(0, 98)],
    ["bytes=99-", 100, range(99, 99)],
    ["bytes=98-99", 100, range(98, 99)],
    ["bytes=50-99999999999999999999999", 100, range(50, 99)],
    ["bytes=-1", 100, range(99, 99)],
    ["bytes=-99", 100, range(1, 99)],
    ["bytes=-100", 100, range(0, 99)],
    ["bytes=-101", 100, range(0, 99)],
    ["bytes=-99999999999999999999999", 100, range(0, 99)],
    ["BYTES=1-2", 100, range(1, 2)],
    ["bytes = 1-2 ", 100, range(1, 2)],
    ["bytes=0-", 1, range(0, 0)],
  ];
  for (const [header, size, want] of cases) {
    await t.step(`${header} of ${size}`, () => assert.deepEqual(parseRange(header, size), want));
  }
});

Deno.test("parseRange() reports unsatisfiable single ranges", async (t) => {
  const cases: [string, number][] = [
    ["bytes=100-", 100],
    ["bytes=100-200", 100],
    ["bytes=101-", 100],
    ["bytes=99999999999999999999999-", 100],
    ["bytes=-0", 100],
    ["bytes=0-", 0],
    ["bytes=-5", 0],
    ["bytes=0-0", 0],
  ];
  for (const [header, size] of cases) {
    await t.step(
      `${header} of ${size}`,
      () => assert.deepEqual(parseRange(header, size), unsatisfiable),
    );
  }
});

Deno.test("parseRange() ignores multi-range and malformed values", async (t) => {
  const cases = [
    "",
    "bytes=",
    "bytes=-",
    "bytes=0-1,5-6",
    "bytes=0-1, 5-6",
    "bytes=0-1,",
    "bytes=5-4",
    "bytes=99999999999999999999999-99999999999999999999998",
    "bytes=a-b",
    "bytes=1",
    "bytes=-1-2",
    "bytes=+1-2",
    "bytes=1.0-2",
    "bytes=0x1-2",
    "items=0-1",
    "bytes:0-1",
    "0-1",
    "bytes=0-1\u0000",
  ];
  for (const header of cases) {
    await t.step(JSON.stringify(header), () => assert.deepEqual(parseRange(header, 100), none));
  }
  await t.step("absent", () => assert.deepEqual(parseRange(null, 100), none));
});

Deno.test("contentRange() formats served and unsatisfiable ranges", () => {
  assert.equal(contentRange(100, { start: 5, end: 9 }), "bytes 5-9/100");
  assert.equal(contentRange(0), "bytes */0");
  assert.equal(contentRange(100), "bytes */100");
});
