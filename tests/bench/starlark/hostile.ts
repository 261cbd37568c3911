// deno-lint-ignore-file no-console -- a benchmark reports on the console
/**
 * Hostile-program benchmark: each program of the interpreter's hostile suite runs in a fresh
 * process (so its peak RSS is its own, measured by /usr/bin/time -v), under (a) the default budgets
 * with a 64 MiB allocation budget and (b) the hostile-suite budgets (docs/starlark.md). Reports how
 * long each ran past its deadline (goal: ≤ 100 ms) and its peak RSS against a trivial program's,
 * measured in the same run (goal: < 400 MiB). Writes the `## starlark hostile programs` section of
 * tests/bench/RESULTS.md.
 *
 *   deno run -A tests/bench/starlark/hostile.ts [--no-write] [name-filter]
 *   (child mode, used by the above: hostile.ts --child CONFIG INDEX)
 */
import { parseArgs } from "node:util";
import { run } from "@svc/starlark";
import { HOSTILE, type Hostile, hostileProgram } from "../../../starlark/_test_support.ts";

const MiB = 1024 * 1024;
const CONFIGS: Record<string, { label: string; budgets: Record<string, number> }> = {
  defaults: { label: "defaults, maxAllocBytes 64 MiB", budgets: { maxAllocBytes: 64 * MiB } },
  issue: {
    label:
      "hostile budgets (1M steps, 5 s, 1 MiB maxBytes, depth 64), maxAllocBytes 256 MiB (default)",
    budgets: { maxSteps: 1_000_000, timeoutMs: 5000, maxBytes: MiB, maxDepth: 64 },
  },
};
const TRIVIAL: Hostile = { name: "trivial main (baseline)", body: "return 1", codes: [] };

interface Outcome {
  code: string;
  ms: number;
  /** The run's deadline in ms from its start. */
  deadlineMs: number;
}

async function child(config: string, index: number): Promise<void> {
  const h = index < 0 ? TRIVIAL : HOSTILE[index];
  const budgets = CONFIGS[config].budgets;
  const { DEFAULT_BUDGETS } = await import("@svc/starlark");
  const start = performance.now();
  const r = await run(hostileProgram(h), { budgets });
  const ms = performance.now() - start;
  const out: Outcome = {
    code: r.ok ? "ok" : r.error.code,
    ms,
    deadlineMs: budgets.timeoutMs ?? DEFAULT_BUDGETS.timeoutMs,
  };
  console.log(JSON.stringify(out));
}

interface Row extends Outcome {
  name: string;
  rssMiB: number;
}

async function measure(config: string, index: number): Promise<Row> {
  const name = index < 0 ? TRIVIAL.name : HOSTILE[index].name;
  const out = await new Deno.Command("/usr/bin/time", {
    args: [
      "-v",
      Deno.execPath(),
      "run",
      "-A",
      new URL(import.meta.url).pathname,
      "--child",
      config,
      String(index),
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(out.stderr);
  const rssKb = Number(err.match(/Maximum resident set size \(kbytes\): (\d+)/)?.[1] ?? NaN);
  const line = new TextDecoder().decode(out.stdout).trim().split("\n").pop() ?? "";
  let o: Outcome;
  try {
    o = JSON.parse(line);
  } catch {
    o = { code: `crash (exit ${out.code})`, ms: NaN, deadlineMs: NaN };
  }
  return { name, rssMiB: rssKb / 1024, ...o };
}

function table(config: string, rows: Row[], base: Row): string {
  const lines = [
    `### ${CONFIGS[config].label}`,
    "",
    `Baseline: a trivial program peaks at ${base.rssMiB.toFixed(0)} MiB RSS.`,
    "",
    "| program | error | ms | past deadline ms | peak RSS MiB | RSS / baseline |",
    "| --- | --- | ---: | ---: | ---: | ---: |",
  ];
  for (const r of rows) {
    const past = r.ms - r.deadlineMs;
    lines.push(
      `| ${r.name} | ${r.code} | ${r.ms.toFixed(0)} | ${past > 0 ? past.toFixed(0) : "—"} | ` +
        `${r.rssMiB.toFixed(0)} | ${(r.rssMiB / base.rssMiB).toFixed(2)}× |`,
    );
  }
  const worstPast = Math.max(...rows.map((r) => r.ms - r.deadlineMs));
  const worstRss = Math.max(...rows.map((r) => r.rssMiB));
  const limited = rows.filter((r) => !r.code.startsWith("ok") && !r.code.startsWith("crash"));
  lines.push(
    "",
    `Ended with a budget error: ${limited.length} of ${rows.length}. Worst time past the deadline: ` +
      `${
        worstPast > 0 ? worstPast.toFixed(0) + " ms" : "none"
      } (goal ≤ 100 ms). Highest peak RSS: ` +
      `${worstRss.toFixed(0)} MiB` + (config === "defaults" ? " (goal < 400 MiB)." : "."),
    "",
  );
  return lines.join("\n");
}

async function writeSection(text: string): Promise<void> {
  const path = new URL("../RESULTS.md", import.meta.url).pathname;
  const doc = await Deno.readTextFile(path);
  const heading = "## starlark hostile programs\n";
  const at = doc.indexOf(heading);
  let out: string;
  if (at < 0) out = doc.trimEnd() + "\n\n" + heading + "\n" + text;
  else {
    const next = doc.indexOf("\n## ", at + heading.length);
    out = doc.slice(0, at) + heading + "\n" + text + (next < 0 ? "" : doc.slice(next));
  }
  await Deno.writeTextFile(path, out);
  await new Deno.Command(Deno.execPath(), { args: ["fmt", path] }).output();
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: { child: { type: "boolean" }, "no-write": { type: "boolean" } },
    allowPositionals: true,
  });
  if (values.child) return await child(positionals[0], Number(positionals[1]));
  const filter = positionals[0] ?? "";
  const load = (await Deno.readTextFile("/proc/loadavg")).split(" ")[0];
  const parts = [
    `Measured ${new Date().toISOString().slice(0, 16)}Z (load average ${load} at start, shared ` +
    `machine), Deno ${Deno.version.deno}. \`deno run -A tests/bench/starlark/hostile.ts\`: each ` +
    "program of `starlark/_test_support.ts` in a fresh process; peak " +
    "RSS from `/usr/bin/time -v` (includes Deno itself); time is `run()`'s, from start to result.",
    "",
  ];
  for (const config of Object.keys(CONFIGS)) {
    const base = await measure(config, -1);
    const rows: Row[] = [];
    for (let i = 0; i < HOSTILE.length; i++) {
      if (!HOSTILE[i].name.includes(filter)) continue;
      const r = await measure(config, i);
      console.log(
        `${config} | ${r.name} | ${r.code} | ${r.ms.toFixed(0)} ms | ${r.rssMiB.toFixed(0)} MiB`,
      );
      rows.push(r);
    }
    parts.push(table(config, rows, base));
  }
  const text = parts.join("\n");
  console.log(text);
  if (!values["no-write"] && filter === "") await writeSection(text);
}

await main();
