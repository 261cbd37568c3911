/**
 * Command-line runner: `deno run --allow-read cli.ts [flags] FILE`.
 * Runs FILE, calls main() when defined, prints the result as JSON on stdout; errors go to
 * stderr with exit status 1 (2 for usage errors).
 */
import type { Budgets, RunResult } from "./api_types.ts";
import { DEFAULT_BUDGETS as D } from "./budgets.ts";
import { run } from "./run.ts";

const USAGE = `usage: cli.ts [flags] FILE
  --max-steps N       maximum execution steps (default ${D.maxSteps})
  --timeout D         wall-clock limit: Go duration (500ms, 2s, 1m30s) or milliseconds
                      (default ${D.timeoutMs}ms)
  --max-host-calls N  maximum host calls (default ${D.maxHostCalls})
  --max-depth N       maximum depth of the result value (default ${D.maxDepth})
  --max-bytes N       maximum size in bytes of the result value (and of built values)
                      (default ${D.maxBytes})
  --max-alloc N       bytes the program may allocate in total (default ${D.maxAllocBytes})
  --steps             print the number of steps used to stderr
Every budget flag also accepts "unlimited".`;

/** Milliseconds per unit of Go's time.ParseDuration. */
const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  "µs": 1e-3,
  "μs": 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * A non-negative Go duration ("1m30s", "500ms", "1.5h") or a bare number of milliseconds → ms.
 * (Parsed here: the library depends on nothing outside its folder.)
 */
export function parseTimeout(text: string): number {
  if (text === "unlimited") return Infinity;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const part = /(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let ms = 0;
  let i = 0;
  if (text.startsWith("+")) i = 1;
  if (i === text.length) throw new RangeError(`invalid duration ${JSON.stringify(text)}`);
  while (i < text.length) {
    part.lastIndex = i;
    const m = part.exec(text);
    if (m === null) throw new RangeError(`invalid duration ${JSON.stringify(text)}`);
    ms += Number(m[1]) * UNIT_MS[m[2]];
    i = part.lastIndex;
  }
  return ms;
}

/** The command line, read by `parseArgs`. */
export interface CliArgs {
  /** The program to run. */
  file: string;
  /** The budgets given by flags (the others take their defaults). */
  budgets: Budgets;
  /** `--steps`: print the steps used to stderr. */
  printSteps: boolean;
}

/** Read the flags and FILE; throws RangeError with the reason on a usage error. */
export function parseArgs(args: string[]): CliArgs {
  const budgets: Budgets = {};
  let printSteps = false;
  let file: string | undefined;
  const int = (name: string, v: string | undefined): number => {
    if (v === "unlimited") return Infinity;
    if (v === undefined || !/^\d+$/.test(v)) {
      throw new RangeError(`${name} needs a non-negative integer or "unlimited"`);
    }
    return Number(v);
  };
  for (let i = 0; i < args.length; i++) {
    let a = args[i];
    let val: string | undefined;
    const eq = a.indexOf("=");
    if (a.startsWith("--") && eq > 0) {
      val = a.slice(eq + 1);
      a = a.slice(0, eq);
    }
    const next = () => val ?? args[++i];
    switch (a) {
      case "--max-steps":
        budgets.maxSteps = int(a, next());
        break;
      case "--timeout":
        budgets.timeoutMs = parseTimeout(next() ?? "");
        break;
      case "--max-host-calls":
        budgets.maxHostCalls = int(a, next());
        break;
      case "--max-depth":
        budgets.maxDepth = int(a, next());
        break;
      case "--max-bytes":
        budgets.maxBytes = int(a, next());
        break;
      case "--max-alloc":
        budgets.maxAllocBytes = int(a, next());
        break;
      case "--steps":
        printSteps = true;
        break;
      default:
        if (a.startsWith("-") || file !== undefined) {
          throw new RangeError(`unexpected argument ${a}`);
        }
        file = a;
    }
  }
  if (file === undefined) throw new RangeError("missing FILE");
  return { file, budgets, printSteps };
}

/** Render a result: [stdout text, stderr text, exit code]. */
export function render(r: RunResult, printSteps: boolean): [string, string, number] {
  const steps = r.ok ? r.steps : r.error.steps;
  const stepsLine = printSteps ? `steps: ${steps}\n` : "";
  if (r.ok) {
    const json = JSON.stringify(r.value, (_k, v) => (typeof v === "bigint" ? `__BIG__${v}__` : v))
      .replace(/"__BIG__(-?\d+)__"/g, "$1");
    return [json + "\n", stepsLine, 0];
  }
  const e = r.error;
  const trace = e.backtrace && e.backtrace.length > 0
    ? `Traceback (most recent call last):\n${
      e.backtrace.map((l) => `  ${l}`).join("\n")
    }\nError: ${e.message}\n`
    : `${e.message}\n`;
  return ["", trace + stepsLine, 1];
}

/** Run the command line `args`; resolves to the exit status (0, 1 for errors, 2 for usage). */
export async function main(args: string[]): Promise<number> {
  const enc = new TextEncoder();
  let parsed: CliArgs;
  try {
    parsed = parseArgs(args);
  } catch (e) {
    await Deno.stderr.write(enc.encode(`${(e as Error).message}\n${USAGE}\n`));
    return 2;
  }
  let source: string;
  try {
    source = await Deno.readTextFile(parsed.file);
  } catch (e) {
    await Deno.stderr.write(enc.encode(`cannot read ${parsed.file}: ${(e as Error).message}\n`));
    return 1;
  }
  const printed: string[] = [];
  const result = await run(source, {
    filename: parsed.file,
    budgets: parsed.budgets,
    print: (line) => printed.push(line),
  });
  if (printed.length > 0) await Deno.stderr.write(enc.encode(printed.join("\n") + "\n"));
  const [out, err, code] = render(result, parsed.printSteps);
  if (out) await Deno.stdout.write(enc.encode(out));
  if (err) await Deno.stderr.write(enc.encode(err));
  return code;
}

if (import.meta.main) {
  Deno.exitCode = await main(Deno.args);
}
