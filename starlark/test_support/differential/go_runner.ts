/**
 * Drives `gorunner/`, our starlark-go reference runner (see gorunner/main.go): one long-lived
 * batch process, or one process per file. Building it: `build_gorunner.ts`. Tests that need it
 * call `goRunnerMissing()` at registration time and are ignored with that reason.
 */
export { buildGoRunner, goRunnerMissing } from "./build_gorunner.ts";

/** One program's outcome as printed by the Go runner. */
export interface GoResult {
  ok: boolean;
  /** The converted final value; ints outside the safe range are bigints. */
  value?: unknown;
  /** repr() of the final value. */
  repr?: string;
  /** syntax | resolve | runtime | steps | timeout | conversion | panic (starlark-go crashed) */
  errorClass?: string;
  message?: string;
  /** Runtime errors: position in the innermost frame that is program code. */
  line?: number;
  col?: number;
  steps: number;
  /** In-process execution time in nanoseconds (parse to result, no process start). */
  ns: number;
}

export interface GoRequest {
  src: string;
  maxSteps?: number;
  timeoutMs?: number;
}

/** JSON.parse keeping the int/float distinction of the Go output (ints beyond 2^53 → bigint). */
export function parseGoJson(text: string): unknown {
  return JSON.parse(text, (_key, value, context?: { source?: string }) => {
    if (typeof value !== "number" || !context?.source) return value;
    const src = context.source;
    if (/[.eE]/.test(src) || Number.isSafeInteger(value)) return value;
    return BigInt(src);
  });
}

/** A long-lived `gorunner --batch` process: one request line in, one result line out. */
export interface GoBatch {
  run(request: GoRequest): Promise<GoResult>;
  close(): Promise<void>;
}

interface RunnerProcess {
  child: Deno.ChildProcess;
  writer: WritableStreamDefaultWriter<Uint8Array>;
  reader: ReadableStreamDefaultReader<string>;
  buffered: string;
}

function spawnRunner(binary: string): RunnerProcess {
  const child = new Deno.Command(binary, {
    args: ["--batch"],
    stdin: "piped",
    stdout: "piped",
    stderr: "null", // a crash (see below) prints a Go stack trace we do not want in test output
  }).spawn();
  return {
    child,
    writer: child.stdin.getWriter(),
    reader: child.stdout.pipeThrough(new TextDecoderStream()).getReader(),
    buffered: "",
  };
}

async function readLine(p: RunnerProcess): Promise<string | undefined> {
  while (!p.buffered.includes("\n")) {
    const { value, done } = await p.reader.read();
    if (done) return undefined;
    p.buffered += value;
  }
  const i = p.buffered.indexOf("\n");
  const line = p.buffered.slice(0, i);
  p.buffered = p.buffered.slice(i + 1);
  return line;
}

async function stopRunner(p: RunnerProcess): Promise<void> {
  await p.writer.close().catch(() => {});
  await p.reader.cancel().catch(() => {});
  await p.child.status;
}

/**
 * Starts a batch runner. Old starlark-go versions can die with a fatal Go error (e.g. a stack
 * overflow encoding a cyclic list as JSON), which no `recover` catches: the program is then
 * reported with error class "panic" and a fresh runner takes over.
 */
export function startGoBatch(binary: string): GoBatch {
  const encoder = new TextEncoder();
  let current = spawnRunner(binary);
  let queue = Promise.resolve();

  async function exchange(request: GoRequest): Promise<GoResult> {
    let line: string | undefined;
    try {
      await current.writer.write(encoder.encode(JSON.stringify(request) + "\n"));
      line = await readLine(current);
    } catch {
      line = undefined;
    }
    if (line !== undefined) return parseGoJson(line) as GoResult;
    await stopRunner(current);
    current = spawnRunner(binary);
    return { ok: false, errorClass: "panic", message: "the Go runner crashed", steps: 0, ns: 0 };
  }

  function run(request: GoRequest): Promise<GoResult> {
    // Requests are serialised: the runner answers strictly in order.
    const result = queue.then(() => exchange(request));
    queue = result.then(() => {}, () => {});
    return result;
  }

  async function close(): Promise<void> {
    await queue;
    await stopRunner(current);
  }

  return { run, close };
}

/** Runs one program in a fresh Go runner process (what a user of the CLI pays). */
export async function runGoFile(
  binary: string,
  path: string,
  options: { maxSteps?: number; timeoutMs?: number } = {},
): Promise<GoResult> {
  const args: string[] = [];
  if (options.maxSteps) args.push("--max-steps", String(options.maxSteps));
  if (options.timeoutMs) args.push("--timeout", String(options.timeoutMs));
  const out = await new Deno.Command(binary, { args: [...args, path], stdout: "piped" }).output();
  return parseGoJson(new TextDecoder().decode(out.stdout)) as GoResult;
}
