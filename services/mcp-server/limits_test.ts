import assert from "node:assert/strict";
import { DEFAULT_LIMITS, limitsTable, toolLimits } from "./limits.ts";

const BEGIN = "<!-- limits:begin (generated from LIMIT_ROWS in services/mcp-server/limits.ts) -->";
const END = "<!-- limits:end -->";

/** A Markdown table without the padding `deno fmt` adds. */
function unpadded(table: string): string {
  return table.split("\n").map((line) =>
    line.trim().split("|").map((cell) => /^\s*-+\s*$/.test(cell) ? "---" : cell.trim()).join("|")
  ).join("\n");
}

function tableIn(text: string, path: string): string {
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END, begin);
  assert.ok(begin >= 0 && end > begin, `${path} has no ${BEGIN} ... ${END} block`);
  return text.slice(begin + BEGIN.length, end).trim();
}

Deno.test("the README's and the contract's limits tables are the code's", async () => {
  for (const path of ["../../docs/mcp-server.md", "./README.md"]) {
    const text = await Deno.readTextFile(new URL(path, import.meta.url));
    assert.equal(
      unpadded(tableIn(text, path)),
      unpadded(limitsTable()),
      `${path}: the limits table is stale; put this there (then deno fmt):\n${limitsTable()}`,
    );
  }
});

Deno.test("the table lists every setting's default and the fixed bounds", () => {
  const table = limitsTable();
  assert.ok(table.includes(`| \`--max-execution-steps\` | ${DEFAULT_LIMITS.maxExecutionSteps} |`));
  assert.ok(table.includes("| `--max-execution-time` | 5s |"));
  assert.ok(table.includes("| `--execution-queue-timeout` | 10s |"));
  assert.ok(table.includes("| `--worker-heap-mb` | 192 MiB |"));
  assert.ok(table.includes("| (fixed) | 16 |"));
  assert.ok(table.includes("| (fixed) | 256 bytes |"));
  assert.throws(() => tableIn("no block", "x"), /no <!-- limits:begin/);
  assert.equal(unpadded("| a   | b |\n| --- | ----- |"), "|a|b|\n|---|---|");
});

Deno.test("durations read as whole seconds or milliseconds", () => {
  assert.ok(
    toolLimits("execute", { ...DEFAULT_LIMITS, maxExecutionMs: 1 }).includes("1ms elapsed"),
  );
  assert.ok(toolLimits("execute", { ...DEFAULT_LIMITS, maxExecutionMs: 999 }).includes("999ms"));
  assert.ok(
    toolLimits("execute", { ...DEFAULT_LIMITS, maxExecutionMs: 1000 }).includes("1s elapsed"),
  );
  assert.ok(toolLimits("execute", { ...DEFAULT_LIMITS, maxExecutionMs: 1001 }).includes("1001ms"));
});
