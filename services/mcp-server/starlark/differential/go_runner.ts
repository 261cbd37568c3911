/**
 * Builds and drives `gorunner/`, our starlark-go reference runner (see gorunner/main.go).
 *
 * The runner is compiled offline from Debian's GOPATH sources (golang-go + golang-starlark-dev)
 * into a cache directory keyed by a hash of its sources; nothing is committed. Tests that need it
 * call `goRunnerMissing()` at registration time and are ignored with that reason.
 */

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

const SOURCES = ["main.go", "math.go"];

/** Import paths of starlark-go's json module, oldest layout first. */
const JSON_PACKAGES = ["go.starlark.net/starlarkjson", "go.starlark.net/lib/json"];

function goPath(): string {
  return Deno.env.get("STARLARK_GOPATH") ?? "/usr/share/gocode";
}

function findOnPath(name: string): string | undefined {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      const path = `${dir}/${name}`;
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** Why the Go runner cannot be built here, or undefined when it can. Synchronous for `ignore`. */
export function goRunnerMissing(): string | undefined {
  if (Deno.env.get("STARLARK_GORUNNER")) return undefined;
  if (!findOnPath("go")) return "needs `go` on PATH (Debian package golang-go)";
  try {
    Deno.statSync(`${goPath()}/src/go.starlark.net/starlark/eval.go`);
  } catch {
    return `needs starlark-go sources under ${goPath()}/src (Debian package golang-starlark-dev)`;
  }
  return undefined;
}

function jsonPackage(): string {
  for (const pkg of JSON_PACKAGES) {
    try {
      Deno.statSync(`${goPath()}/src/${pkg}`);
      return pkg;
    } catch {
      // try the next layout
    }
  }
  return JSON_PACKAGES[0];
}

function jsonModuleSource(pkg: string): string {
  return `package main\n\nimport starlarkjson "${pkg}"\n\nvar jsonModule = starlarkjson.Module\n`;
}

async function sourcesHash(dir: string, extra: string): Promise<string> {
  const parts: Uint8Array[] = [new TextEncoder().encode(extra)];
  for (const name of SOURCES) parts.push(await Deno.readFile(`${dir}/${name}`));
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    all.set(p, offset);
    offset += p.length;
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", all));
  return Array.from(digest.slice(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Returns the path of a built Go runner, building it when the cache lacks this source version.
 * `STARLARK_GORUNNER` names a prebuilt binary; `STARLARK_GORUNNER_CACHE` overrides the cache dir.
 */
export async function buildGoRunner(): Promise<string> {
  const prebuilt = Deno.env.get("STARLARK_GORUNNER");
  if (prebuilt) return prebuilt;
  const missing = goRunnerMissing();
  if (missing) throw new Error(`Cannot build the Go reference runner: ${missing}`);
  const srcDir = new URL("./gorunner", import.meta.url).pathname;
  const cache = Deno.env.get("STARLARK_GORUNNER_CACHE") ??
    `${Deno.env.get("TMPDIR") ?? "/tmp"}/starlark-gorunner`;
  await Deno.mkdir(cache, { recursive: true });
  const jsonGo = jsonModuleSource(jsonPackage());
  const hash = await sourcesHash(srcDir, jsonGo);
  const binary = `${cache}/gorunner-${hash}`;
  try {
    await Deno.stat(binary);
    return binary;
  } catch {
    // not built yet
  }
  // Parallel test files may build at once: each stages its own copy and binary, then renames
  // the binary atomically.
  const unique = `${Deno.pid}.${crypto.randomUUID().slice(0, 8)}`;
  const partial = `${binary}.${unique}`;
  const stage = `${cache}/src-${hash}.${unique}`;
  await Deno.mkdir(stage, { recursive: true });
  for (const name of SOURCES) await Deno.copyFile(`${srcDir}/${name}`, `${stage}/${name}`);
  await Deno.writeTextFile(`${stage}/jsonmod.go`, jsonGo);
  const out = await new Deno.Command("go", {
    args: ["build", "-o", partial, "."],
    cwd: stage,
    env: {
      GO111MODULE: "off", // GOPATH mode: imports come from Debian's sources, no network
      GOPATH: goPath(),
      GOCACHE: `${cache}/gocache`,
      GOFLAGS: "",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  await Deno.remove(stage, { recursive: true });
  if (!out.success) {
    throw new Error(
      `Cannot build the Go reference runner: ${new TextDecoder().decode(out.stderr)}`,
    );
  }
  await Deno.rename(partial, binary);
  return binary;
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

// `deno run -A go_runner.ts` builds (or finds) the runner and prints its path.
if (import.meta.main) {
  Deno.stdout.writeSync(new TextEncoder().encode((await buildGoRunner()) + "\n"));
}
