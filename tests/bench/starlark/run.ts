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
} from "../../../services/mcp-server/starlark/differential/go_runner.ts";
import { sameValue } from "../../../services/mcp-server/starlark/differential/compare.ts";

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
  for (let i = 0; i < reps; i++) go.push(await runGoFile(goBinary, path));
  const ourMs: number[] = [];
  let ours: RunResult;
  try {
    await run(src); // warm-up: JIT and first-use costs are not what we compare
    ours = await run(src);
    for (let i = 0; i < reps; i++) {
      const start = performance.now();
      ours = await run(src);
      ourMs.push(performance.now() - start);
    }
  } catch (err) {
    const note = `ours threw: ${String(err).slice(0, 60)}`;
    return {
      name,
      goMs: median(go.map((g) => g.ns / 1e6)),
      ourMs: NaN,
      goSteps: go[0].steps,
      ourSteps: NaN,
      sameResult: false,
      note,
    };
  }
  const goValue = go[0].ok ? go[0].value : go[0].errorClass;
  const ourValue = ours.ok ? ours.value : ours.error.code;
  return {
    name,
    goMs: median(go.map((g) => g.ns / 1e6)),
    ourMs: median(ourMs),
    goSteps: go[0].steps,
    ourSteps: ours.ok ? ours.steps : ours.error.steps,
    sameResult: go[0].ok === ours.ok && sameValue(ourValue, goValue),
    note: ours.ok ? "" : `ours failed: ${ours.error.code} ${ours.error.message.slice(0, 60)}`,
  };
}

async function processStart(
  goBinary: string,
  reps: number,
): Promise<{ goMs: number; ourMs: number }> {
  const file = await Deno.makeTempFile({ suffix: ".star" });
  try {
    await Deno.writeTextFile(file, "def main():\n    return 1\n");
    const cli = new URL("../../../services/mcp-server/starlark/cli.ts", import.meta.url).pathname;
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
  return `${new Date().toISOString().slice(0, 16)}Z, ${navigator.hardwareConcurrency} × ${cpu}, ` +
    `Deno ${Deno.version.deno} (V8 ${Deno.version.v8}), ${goVersion}, starlark-go from Debian golang-starlark-dev`;
}

function table(
  rows: Row[],
  start: { goMs: number; ourMs: number },
  notes: string,
  reps: number,
): string {
  const lines = [
    `Run ${notes}. Median of ${reps} runs per program; Go time is the runner's in-process time`,
    "(parse to result), ours is `run()` in process after one warm-up run. Goal: ratio ≤ 2.",
    "",
    "| program | starlark-go ms | ours ms | ours/Go | Go steps | our steps | steps equal | same result |",
    "| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |",
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.name} | ${r.goMs.toFixed(1)} | ${r.ourMs.toFixed(1)} | ${
        (r.ourMs / r.goMs).toFixed(2)
      }× | ` +
        `${r.goSteps} | ${r.ourSteps} | ${r.goSteps === r.ourSteps ? "yes" : "no"} | ` +
        `${r.sameResult ? "yes" : `no ${r.note}`} |`,
    );
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

async function writeSection(text: string): Promise<void> {
  const path = new URL("../RESULTS.md", import.meta.url).pathname;
  const doc = await Deno.readTextFile(path);
  const heading = "## starlark\n";
  const at = doc.indexOf(heading);
  if (at < 0) throw new Error("Cannot write results: no `## starlark` section in RESULTS.md");
  const bodyStart = at + heading.length;
  const next = doc.indexOf("\n## ", bodyStart);
  const rest = next < 0 ? "" : doc.slice(next + 1);
  await Deno.writeTextFile(path, doc.slice(0, bodyStart) + "\n" + text + (rest ? "\n" + rest : ""));
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
  const text = table(rows, start, await machineNotes(), reps);
  say("\n" + text);
  if (!values["no-write"] && positionals.length === 0) await writeSection(text);
}

if (import.meta.main) await main();
