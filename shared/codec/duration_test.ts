import assert from "node:assert/strict";
import { formatDuration, formatDurationNs, parseDuration, parseDurationNs } from "./duration.ts";
import goTable from "./testdata/go_durations.json" with { type: "json" };

Deno.test("parseDurationNs() matches Go's time.ParseDuration on every table row", () => {
  for (const row of goTable) {
    if (row.err) {
      assert.throws(() => parseDurationNs(row.in), (e: Error) => {
        assert.ok(e instanceof RangeError);
        assert.equal(e.message, row.err, `error text for ${JSON.stringify(row.in)}`);
        return true;
      });
    } else {
      assert.equal(parseDurationNs(row.in), BigInt(row.ns!), `value of ${JSON.stringify(row.in)}`);
    }
  }
});

Deno.test("formatDurationNs() prints what Go's Duration.String prints", () => {
  for (const row of goTable) {
    if (row.err) continue;
    assert.equal(formatDurationNs(BigInt(row.ns!)), row.str, `string of ${row.in}`);
  }
});

Deno.test("parseDuration() and formatDuration() work in milliseconds", async (t) => {
  await t.step("common settings", () => {
    assert.equal(parseDuration("90s"), 90_000);
    assert.equal(parseDuration("300ms"), 300);
    assert.equal(parseDuration("1.5h"), 5_400_000);
    assert.equal(parseDuration("0"), 0);
    assert.equal(parseDuration("-1m"), -60_000);
  });
  await t.step("round trip", () => {
    assert.equal(formatDuration(90_000), "1m30s");
    assert.equal(formatDuration(0.5), "500µs");
    assert.equal(formatDuration(9_900_500), "2h45m0.5s");
  });
});
