import assert from "node:assert/strict";
import { formatHttpDate, parseHttpDate } from "./http_date.ts";

const NOV_6_1994 = 784111777;

Deno.test("parseHttpDate() accepts the three HTTP-date formats", async (t) => {
  await t.step("IMF-fixdate", () => {
    assert.equal(parseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT"), NOV_6_1994);
  });
  await t.step("RFC 850", () => {
    assert.equal(parseHttpDate("Sunday, 06-Nov-94 08:49:37 GMT"), NOV_6_1994);
  });
  await t.step("asctime", () => {
    assert.equal(parseHttpDate("Sun Nov  6 08:49:37 1994"), NOV_6_1994);
    assert.equal(parseHttpDate("Wed Nov 16 08:49:37 1994"), NOV_6_1994 + 10 * 86400);
  });
  await t.step("RFC 850 two-digit years: more than 50 years ahead means the past century", () => {
    const now = Date.UTC(2026, 0, 1);
    assert.equal(
      parseHttpDate("Tuesday, 01-Jan-80 00:00:00 GMT", now),
      Date.UTC(1980, 0, 1) / 1000,
    );
    assert.equal(
      parseHttpDate("Sunday, 01-Jan-40 00:00:00 GMT", now),
      Date.UTC(2040, 0, 1) / 1000,
    );
  });
  await t.step("leap second 60 is read as 59", () => {
    assert.equal(
      parseHttpDate("Sat, 31 Dec 2016 23:59:60 GMT"),
      Date.UTC(2016, 11, 31, 23, 59, 59) / 1000,
    );
  });
});

Deno.test("parseHttpDate() rejects anything else", () => {
  const bad = [
    "",
    "2020",
    "yesterday",
    "Sun, 06 Nov 1994 08:49:37 UTC",
    "Sun, 06 Nov 1994 08:49:37",
    "Sun, 6 Nov 1994 08:49:37 GMT",
    "sun, 06 nov 1994 08:49:37 gmt",
    "Mon, 06 Nov 1994 08:49:37 GMT",
    "Sun, 31 Nov 1994 08:49:37 GMT",
    "Sun, 06 Nov 1994 24:00:00 GMT",
    "Sun, 06 Nov 1994 08:60:00 GMT",
    " Sun, 06 Nov 1994 08:49:37 GMT",
    "Sun, 06 Nov 1994 08:49:37 GMT, Sun, 06 Nov 1994 08:49:37 GMT",
    "1994-11-06T08:49:37Z",
    "784111777",
    "Sun, 06 Nov 1994 08:49:37 GMT\u0000",
  ];
  for (const value of bad) assert.equal(parseHttpDate(value), null, JSON.stringify(value));
});

Deno.test("formatHttpDate() writes IMF-fixdate that parseHttpDate() reads back", () => {
  const text = formatHttpDate(new Date(NOV_6_1994 * 1000));
  assert.equal(text, "Sun, 06 Nov 1994 08:49:37 GMT");
  assert.equal(parseHttpDate(text), NOV_6_1994);
});
