import assert from "node:assert/strict";
import { resultsFindings } from "./bench_results.ts";

const BENCH = new URL("../bench/", import.meta.url);

const TABLE =
  "| measure | figure | baseline | ratio | date | commit |\n| --- | --- | --- | --- | --- | --- |";

/** A RESULTS.md with one benchmark (`a/run.ts`), its table row and its log as given. */
function results(
  { row = "| x | 2 ms | 1 ms: y | 2× | 2026-11-24 | abc1234 |", log = "Run 2026-11-24T10:00Z." } =
    {},
) {
  return [
    "# Benchmark results",
    "",
    "## Current figures",
    "",
    "### `a/run.ts`",
    "",
    "Log: [a](#a).",
    "",
    TABLE,
    row,
    "",
    "# History",
    "",
    "## a",
    "",
    log,
    "",
    "### a detail",
    "",
    "Still 2026-11-23.",
    "",
    "## b",
    "",
    "Run 2026-12-01 (not a's).",
    "",
  ].join("\n");
}

const exists = (script: string) => script === "a/run.ts";

Deno.test("resultsFindings accepts current tables as new as their logs", () => {
  assert.deepEqual(resultsFindings(results(), ["a"], exists), []);
  // A log as old as, or older than, the table is fine; a log without dates too.
  assert.deepEqual(resultsFindings(results({ log: "Run 2026-11-20." }), ["a"], exists), []);
  assert.deepEqual(resultsFindings(results({ log: "No date." }), ["a"], exists), []);
});

Deno.test("resultsFindings names a log newer than its table, a missing table, a bad row", () => {
  assert.deepEqual(resultsFindings(results({ log: "Run 2026-11-25T08:00Z." }), ["a"], exists), [
    '"Current figures", a/run.ts: its log #a has figures of 2026-11-25, newer than the ' +
    "table's 2026-11-24: copy them into the table",
  ]);
  assert.deepEqual(resultsFindings(results(), ["a", "c"], exists), [
    'tests/bench/c: no table under "Current figures"',
  ]);
  assert.deepEqual(
    resultsFindings(results({ row: "| x | 2 ms | 1 ms | 2× | 24 Nov | abc1234 |" }), ["a"], exists),
    ['"Current figures", a/run.ts: "x": date 24 Nov'],
  );
  assert.deepEqual(
    resultsFindings(
      results({ row: "| x | 2 ms | 1 ms | 2× | 2026-11-24 | main |" }),
      ["a"],
      exists,
    ),
    ['"Current figures", a/run.ts: "x": commit main'],
  );
  assert.deepEqual(
    resultsFindings(results({ row: "| x | 2 ms | 2× | 2026-11-24 | abc1234 |" }), ["a"], exists),
    ['"Current figures", a/run.ts: "x" has 5 cells'],
  );
  assert.deepEqual(resultsFindings(results().replace("(#a)", "(#nowhere)"), ["a"], exists), [
    '"Current figures", a/run.ts: no log section #nowhere under "History"',
  ]);
  assert.deepEqual(resultsFindings(results().replace("| ratio |", "| times |"), ["a"], exists), [
    '"Current figures", a/run.ts: the table\'s columns are not measure, figure, baseline, ' +
    "ratio, date, commit",
  ]);
  assert.deepEqual(resultsFindings(results(), ["a"], () => false), [
    '"Current figures", a/run.ts: tests/bench/a/run.ts does not exist',
  ]);
  assert.deepEqual(resultsFindings(results().replace("# History", "## History"), ["a"], exists), [
    "RESULTS.md opens with `## Current figures` and keeps its logs below `# History`",
  ]);
});

Deno.test("tests/bench/RESULTS.md opens with a current table per benchmark, none behind its log", async () => {
  const benchmarks: string[] = [];
  for await (const entry of Deno.readDir(BENCH)) {
    if (!entry.isDirectory) continue;
    const hasRun = await Deno.stat(new URL(`${entry.name}/run.ts`, BENCH)).then(
      () => true,
      () => false,
    );
    if (hasRun) benchmarks.push(entry.name);
  }
  assert.ok(benchmarks.length >= 10, `benchmarks found: ${benchmarks}`);
  const markdown = await Deno.readTextFile(new URL("RESULTS.md", BENCH));
  const exists = (script: string) => {
    try {
      return Deno.statSync(new URL(script, BENCH)).isFile;
    } catch {
      return false;
    }
  };
  assert.deepEqual(resultsFindings(markdown, benchmarks.sort(), exists), []);
});
