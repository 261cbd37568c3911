/**
 * The shape of `tests/bench/RESULTS.md`: it opens with `## Current figures`, one `` ### `script` ``
 * block per benchmark (a `Log:` line linking its dated log section, then one table of measure,
 * figure, baseline, ratio, date, commit), and keeps the dated logs below a `# History` heading.
 * Every benchmark folder has a block, and no log holds a date newer than its block's table: a
 * benchmark run with `--write` rewrites its log, and its current figures must follow.
 *
 * @module
 */
import { slug } from "./markdown_links.ts";

/** The columns of every current table, in order. */
const COLUMNS = ["measure", "figure", "baseline", "ratio", "date", "commit"];
const DATE = /(?<!\d)(\d{4}-\d{2}-\d{2})(?!\d)/g;

interface Block {
  script: string;
  logs: string[];
  header?: string[];
  rows: string[][];
}

interface Heading {
  level: number;
  anchor: string;
  line: number;
}

const cells = (line: string) => line.trim().replace(/^\||\|$/g, "").split("|").map((c) => c.trim());
const newest = (dates: string[]) => dates.sort().at(-1);

function blocksOf(lines: string[]): Block[] {
  const blocks: Block[] = [];
  let table = 0;
  for (const line of lines) {
    const start = line.match(/^### `([^`]+)`/);
    if (start) {
      blocks.push({ script: start[1], logs: [], rows: [] });
      table = 0;
      continue;
    }
    const block = blocks.at(-1);
    if (!block) continue;
    if (line.startsWith("Log:")) {
      block.logs.push(...[...line.matchAll(/\]\(#([^)\s]+)\)/g)].map((m) => m[1]));
    } else if (line.startsWith("|")) {
      table++;
      if (table === 1) block.header = cells(line);
      else if (table > 2) block.rows.push(cells(line));
    } else if (line.trim() !== "") table = 0;
  }
  return blocks;
}

function headingsOf(lines: string[]): Heading[] {
  const headings: Heading[] = [];
  let fenced = false;
  lines.forEach((line, i) => {
    if (/^\s{0,3}(`{3,}|~{3,})/.test(line)) fenced = !fenced;
    const m = !fenced && line.match(/^(#{1,6})\s+(.*?)\s*$/);
    if (m) headings.push({ level: m[1].length, anchor: slug(m[2]), line: i });
  });
  return headings;
}

/**
 * What is wrong with `markdown` as RESULTS.md: `benchmarks` are the folders of `tests/bench/`
 * holding a `run.ts`; `exists` tells whether a script path (relative to `tests/bench/`) exists.
 */
export function resultsFindings(
  markdown: string,
  benchmarks: readonly string[],
  exists: (script: string) => boolean,
): string[] {
  const lines = markdown.split("\n");
  const history = lines.indexOf("# History");
  const current = lines.indexOf("## Current figures");
  if (current < 0 || history < 0 || current > history) {
    return ["RESULTS.md opens with `## Current figures` and keeps its logs below `# History`"];
  }
  const findings: string[] = [];
  const blocks = blocksOf(lines.slice(current + 1, history));
  const logLines = lines.slice(history + 1);
  const headings = headingsOf(logLines);
  for (const folder of benchmarks) {
    if (!blocks.some((b) => b.script.startsWith(`${folder}/`))) {
      findings.push(`tests/bench/${folder}: no table under "Current figures"`);
    }
  }
  for (const { script, logs, header, rows } of blocks) {
    const at = `"Current figures", ${script}`;
    if (!exists(script)) findings.push(`${at}: tests/bench/${script} does not exist`);
    if (header?.join("|") !== COLUMNS.join("|")) {
      findings.push(`${at}: the table's columns are not ${COLUMNS.join(", ")}`);
      continue;
    }
    if (rows.length === 0) findings.push(`${at}: the table has no row`);
    for (const row of rows) {
      const [measure, , , , date, commit] = row;
      if (row.length !== COLUMNS.length) {
        findings.push(`${at}: "${measure}" has ${row.length} cells`);
      } else if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) {
        findings.push(`${at}: "${measure}": date ${date}`);
      } else if (!/^[0-9a-f]{7,40}$/.test(commit)) {
        findings.push(`${at}: "${measure}": commit ${commit}`);
      }
    }
    if (logs.length === 0) findings.push(`${at}: no \`Log: [section](#anchor)\` line`);
    const tableDate = newest(rows.map((row) => row[4] ?? ""));
    for (const anchor of logs) {
      const heading = headings.find((h) => h.anchor === anchor);
      if (!heading) {
        findings.push(`${at}: no log section #${anchor} under "History"`);
        continue;
      }
      const end = headings.find((h) => h.line > heading.line && h.level <= heading.level);
      const section = logLines.slice(heading.line, end?.line).join("\n");
      const logDate = newest([...section.matchAll(DATE)].map((m) => m[1]));
      if (logDate && tableDate && logDate > tableDate) {
        findings.push(
          `${at}: its log #${anchor} has figures of ${logDate}, newer than the table's ` +
            `${tableDate}: copy them into the table`,
        );
      }
    }
  }
  return findings;
}
