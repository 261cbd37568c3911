/**
 * Starlark benchmark: each program in programs/ through our interpreter (in process) and through
 * the starlark-go reference runner (in-process time it reports, process start measured apart),
 * in the same run. Writes the table into the `## starlark` section of tests/bench/RESULTS.md.
 *
 *   deno run -A tests/bench/starlark/run.ts [--reps N] [--no-write] [name-filter]
 */
import { parseArgs } from "node:util";
import { run, type RunResult } from "@svc/starlark";
import {
  buildGoRunner,
  type GoResult,
  goRunnerMissing,
  runGoFile,
} from "../../../starlark/test_support/differential/go_runner.ts";
import { sameValue } from "../../../starlark/test_support/differential/compare.ts";

const here = new URL(".", import.meta.url).pathname;
const encoder = new TextEncoder();

function say(line: string): void {
  Deno.stdout.writeSync(encoder.encode(line + "\n"));
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

interface Row {
  name: string;
  goMs: number;
  ourMs: number;
  ourColdMs: number;
  goSteps: number;
  ourSteps: number;
  sameResult: boolean;
  note: string;
}

async function benchProgram(
  name: string,
  path: string,
  goBinary: string,
  reps: number,
): Promise<Row> {
  const src = await Deno.readTextFile(path);
  const go: GoResult[] = [];
  const ourMs: number[] = [];
  let ours: RunResult | undefined;
  let note = "";
  let ourColdMs = NaN;
  try {
    // The first run is reported apart: it includes V8's compilation of the interpreter paths.
    const start = performance.now();
    await run(src);
    ourColdMs = performance.now() - start;
  } catch (err) {
    note = `ours threw: ${String(err).slice(0, 60)}`;
  }
  // Alternate the two runners so a load change on this shared machine hits both alike.
  for (let i = 0; i < reps; i++) {
    go.push(await runGoFile(goBinary, path));
    if (note) continue;
    const start = performance.now();
    ours = await run(src);
    ourMs.push(performance.now() - start);
  }
  const goValue = go[0].ok ? go[0].value : go[0].errorClass;
  const ourValue = ours === undefined ? undefined : ours.ok ? ours.value : ours.error.code;
  if (ours && !ours.ok) note = `ours failed: ${ours.error.code} ${ours.error.message.slice(0, 60)}`;
  return {
    name,
    goMs: median(go.map((g) => g.ns / 1e6)),
    ourMs: ourMs.length ? median(ourMs) : NaN,
    ourColdMs,
    goSteps: go[0].steps,
    ourSteps: ours === undefined ? NaN : ours.ok ? ours.steps : ours.error.steps,
    sameResult: ours !== undefined && go[0].ok === ours.ok && sameValue(ourValue, goValue),
    note,
  };
}

async function processStart(
  goBinary: string,
  reps: number,
): Promise<{ goMs: number; ourMs: number }> {
  const file = await Deno.makeTempFile({ suffix: ".star" });
  try {
    await Deno.writeTextFile(file, "def main():\n    return 1\n");
    const cli = new URL("../../../starlark/cli.ts", import.meta.url).pathname;
    try {
      await Deno.stat(cli);
    } catch {
      return { goMs: NaN, ourMs: NaN }; // the CLI is not there yet
    }
    const wall = async (cmd: string, args: string[]) => {
      const start = performance.now();
      await new Deno.Command(cmd, { args, stdout: "null", stderr: "null" }).output();
      return performance.now() - start;
    };
    const goMs: number[] = [];
    const ourMs: number[] = [];
    for (let i = 0; i < reps; i++) {
      goMs.push(await wall(goBinary, [file]));
      ourMs.push(await wall(Deno.execPath(), ["run", "--allow-read", cli, file]));
    }
    return { goMs: median(goMs), ourMs: median(ourMs) };
  } finally {
    await Deno.remove(file);
  }
}

async function machineNotes(): Promise<string> {
  const cpu = (await Deno.readTextFile("/proc/cpuinfo")).match(/model name\s*:\s*(.*)/)?.[1] ?? "?";
  const goVersion = new TextDecoder().decode(
    (await new Deno.Command("go", { args: ["version"], stdout: "piped" }).output()).stdout,
  ).trim();
  const load = (await Deno.readTextFile("/proc/loadavg")).split(" ")[0];
  return `${new Date().toISOString().slice(0, 16)}Z on ${navigator.hardwareConcurrency} × ${cpu} ` +
    `(load average ${load} at start, shared machine)` + ", " +
    `Deno ${Deno.version.deno} (V8 ${Deno.version.v8}), ${goVersion}, starlark-go from Debian golang-starlark-dev`;
}

function table(
  rows: Row[],
  start: { goMs: number; ourMs: number },
  notes: string,
  reps: number,
): string {
  const lines = [
    `Measured ${notes}.`,
    "",
    `\`deno run -A tests/bench/starlark/run.ts\`. Median of ${reps} runs per program, the two runners`,
    "alternating. starlark-go time is the Go runner's own in-process time (parse to result, fresh",
    "process each run); ours is `run()` in process after one cold run (shown apart: it includes V8",
    "compiling the interpreter's paths). Goal: ours/Go ≤ 2. Steps are not comparable: starlark-go",
    "counts bytecode instructions, we count statements, iterations, calls and built-in work.",
    "Ours runs under the default budgets (`DEFAULT_BUDGETS`: every step and allocation charge on).",
    "",
    "| program | starlark-go ms | ours ms | ours/Go | ours cold ms | Go steps | our steps | steps equal | same result |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |",
  ];
  for (const r of rows) {
    const ratio = (r.ourMs / r.goMs).toFixed(2);
    const cells = [
      r.name,
      r.goMs.toFixed(1),
      r.ourMs.toFixed(1),
      `${ratio}×`,
      r.ourColdMs.toFixed(1),
      r.goSteps,
      r.ourSteps,
      r.goSteps === r.ourSteps ? "yes" : "no",
      r.sameResult ? "yes" : `no ${r.note}`,
    ];
    lines.push(`| ${cells.join(" | ")} |`);
  }
  const geo = Math.exp(rows.reduce((s, r) => s + Math.log(r.ourMs / r.goMs), 0) / rows.length);
  lines.push(
    "",
    `Geometric mean ratio ours/Go: ${geo.toFixed(2)}×. Programs with ratio ≤ 2: ` +
      `${rows.filter((r) => r.ourMs / r.goMs <= 2).length} of ${rows.length}.`,
    "",
    `Process start (a trivial \`main\`, wall clock): Go runner ${start.goMs.toFixed(0)} ms, ` +
      `\`deno run cli.ts\` ${start.ourMs.toFixed(0)} ms — not included above.`,
    "",
  );
  return lines.join("\n");
}

/** Formats Markdown with the workspace's `deno fmt` settings, so RESULTS.md stays fmt-clean. */
async function formatMarkdown(text: string): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--ext", "md", "-"],
    cwd: new URL("../../..", import.meta.url).pathname,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(encoder.encode(text));
  await writer.close();
  const out = await child.output();
  return out.success ? new TextDecoder().decode(out.stdout) : text;
}

async function writeSection(text: string): Promise<void> {
  const path = new URL("../RESULTS.md", import.meta.url).pathname;
  const doc = await Deno.readTextFile(path);
  const heading = "## starlark\n";
  const at = doc.indexOf(heading);
  if (at < 0) throw new Error("Cannot write results: no `## starlark` section in RESULTS.md");
  const bodyStart = at + heading.length;
  const next = doc.indexOf("\n## ", bodyStart);
  const rest = next < 0 ? "" : doc.slice(next + 1);
  const body = (await formatMarkdown(text)).trimEnd() + "\n";
  await Deno.writeTextFile(path, doc.slice(0, bodyStart) + "\n" + body + (rest ? "\n" + rest : ""));
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: {
      reps: { type: "string", default: "5" },
      "no-write": { type: "boolean", default: false },
    },
    allowPositionals: true,
  });
  const missing = goRunnerMissing();
  if (missing) throw new Error(`Cannot benchmark against starlark-go: ${missing}`);
  const goBinary = await buildGoRunner();
  const reps = Number(values.reps);
  const names = (await Array.fromAsync(Deno.readDir(`${here}programs`))).map((e) => e.name)
    .filter((n) =>
      n.endsWith(".star") && (positionals.length === 0 || positionals.some((p) => n.includes(p)))
    )
    .sort();
  const notes = await machineNotes();
  const rows: Row[] = [];
  for (const file of names) {
    const row = await benchProgram(
      file.replace(/\.star$/, ""),
      `${here}programs/${file}`,
      goBinary,
      reps,
    );
    say(
      `${row.name.padEnd(20)} go ${row.goMs.toFixed(1).padStart(8)} ms  ours ${
        row.ourMs.toFixed(1).padStart(8)
      } ms  ` +
        `ratio ${
          (row.ourMs / row.goMs).toFixed(2)
        }  steps ${row.goSteps}/${row.ourSteps}  same ${row.sameResult} ${row.note}`,
    );
    rows.push(row);
  }
  const start = await processStart(goBinary, 3);
  const text = table(rows, start, notes, reps);
  say("\n" + text);
  if (!values["no-write"] && positionals.length === 0) await writeSection(text);
}

if (import.meta.main) await main();
