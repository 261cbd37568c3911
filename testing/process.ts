/**
 * Start a service as a real process and wait until it answers, the way a user would run it
 * ({@linkcode startService}), or run a command to its end ({@linkcode runCommand}). The service's
 * startup log lines (`"msg":"server_listening"`) tell the helper which ports the listeners got, so
 * tests can listen on port 0 and never race for a free port.
 *
 * @module
 */

/** A running service process. */
export interface ServiceProcess {
  /** Base URL of the `api` listener (or of the first listener waited for). */
  url: string;
  /** Base URL of every listener seen, by name. */
  urls: Record<string, string>;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Sends `signal` (default SIGTERM) and resolves with the exit code. */
  stop(signal?: Deno.Signal): Promise<number>;
  /** Resolves with the exit code when the process exits by itself. */
  exited: Promise<number>;
  /** The process id (benchmarks read its memory from `/proc`). */
  pid: number;
}

/** Options of {@linkcode startService}. */
export interface StartServiceOptions {
  /** Path or URL of the entry module (`main.ts`). */
  entry: string;
  /** Arguments after the entry. */
  args?: string[];
  /** Extra environment variables. */
  env?: Record<string, string>;
  /**
   * Starts from an empty environment (plus `env`), so nothing of the test runner's leaks into a
   * process whose behaviour depends on what is unset. @default {false}
   */
  clearEnv?: boolean;
  /** Working directory. @default {the current one} */
  cwd?: string;
  /** Listener names to wait for. @default {["api"]} */
  listeners?: string[];
  /** Polled on the first listener until it answers 200; `null` skips the poll. @default {"/healthz"} */
  healthPath?: string | null;
  /** Gives up after this long. @default {20000} */
  timeoutMs?: number;
  /** Deno permission flags. @default {["-A"]} */
  permissions?: string[];
  /**
   * Characters of output kept for `output()` and a start-up failure's message: the latest ones.
   * A benchmark's service writes an access-log line per request, which would otherwise pile up
   * in the runner (and cost it memory and collection time beside the process it measures).
   * @default {Infinity}
   */
  outputLimit?: number;
}

const LISTENING = /"?listener"?[:=]"?([\w-]+)"?.*?"?url"?[:=]"?(https?:\/\/[^"\s]+)/;

/**
 * Starts `deno run <entry> <args>` and resolves once every wanted listener has announced itself
 * and the health path answers.
 *
 * @example Usage
 * ```ts ignore
 * import { startService } from "@svc/testing";
 * const svc = await startService({
 *   entry: "services/todo-api/main.ts",
 *   args: ["serve", "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"],
 *   listeners: ["api", "metrics"],
 * });
 * await fetch(svc.url + "/healthz");
 * await svc.stop();
 * ```
 */
export async function startService(options: StartServiceOptions): Promise<ServiceProcess> {
  const {
    entry,
    args = [],
    env = {},
    clearEnv = false,
    cwd,
    listeners = ["api"],
    healthPath = "/healthz",
    timeoutMs = 20_000,
    permissions = ["-A"],
    outputLimit = Infinity,
  } = options;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...permissions, entry, ...args],
    env: { NO_COLOR: "1", ...env },
    clearEnv,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let out = "";
  const urls: Record<string, string> = {};
  let announce: () => void = () => {};
  const announced = new Promise<void>((r) => announce = r);
  async function pump(stream: ReadableStream<Uint8Array>) {
    let pending = "";
    for await (const text of stream.pipeThrough(new TextDecoderStream())) {
      out += text;
      if (out.length > 2 * outputLimit) out = out.slice(-outputLimit);
      pending += text;
      if (!pending.includes("listening")) { // most chunks: access-log lines, nothing to split
        pending = pending.slice(pending.lastIndexOf("\n") + 1);
        continue;
      }
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        const m = line.includes("listening") ? LISTENING.exec(line) : null;
        if (m) urls[m[1]] = m[2];
      }
      if (listeners.every((n) => urls[n])) announce();
    }
  }
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const exited = pumps.then(() => child.status).then((s) => s.code);
  let exitedEarly = false;
  exited.then(() => exitedEarly = true);
  const stop = async (signal: Deno.Signal = "SIGTERM") => {
    try {
      child.kill(signal);
    } catch {
      // already exited
    }
    return await exited;
  };
  const deadline = Date.now() + timeoutMs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const fail = (why: string) => new Error(`Cannot start ${entry}: ${why}\n--- output ---\n${out}`);
  try {
    const ok = await Promise.race([
      announced.then(() => true),
      exited.then(() => false),
      // real clock: the bound on the start-up, not a wait
      new Promise<false>((r) => timer = setTimeout(() => r(false), timeoutMs)),
    ]);
    if (!ok) throw fail(exitedEarly ? "the process exited" : "no listening line in time");
    const base = urls[listeners[0]];
    while (healthPath !== null) {
      try {
        const res = await fetch(base + healthPath);
        await res.body?.cancel();
        if (res.status === 200) break;
      } catch {
        // not accepting yet
      }
      if (Date.now() > deadline || exitedEarly) throw fail(`${healthPath} did not answer 200`);
      // real clock: poll interval of a wait bounded by `deadline` that checks the health path itself
      await new Promise((r) => setTimeout(r, 25));
    }
  } catch (err) {
    await stop("SIGKILL");
    throw err;
  } finally {
    clearTimeout(timer);
  }
  return {
    url: urls[listeners[0]],
    urls,
    output: () => out.length > outputLimit ? out.slice(-outputLimit) : out,
    stop,
    exited,
    pid: child.pid,
  };
}

/** What {@linkcode runCommand} saw. */
export interface CommandResult {
  /** Exit code. */
  code: number;
  /** Standard output, decoded as UTF-8. */
  stdout: string;
  /** Standard error, decoded as UTF-8. */
  stderr: string;
}

/**
 * Runs a command to its end with optional stdin and returns its exit code and decoded output
 * (`NO_COLOR=1` is set, so output carries no colour codes).
 *
 * @example Usage
 * ```ts
 * import { runCommand } from "@svc/testing";
 * const { code, stdout } = await runCommand(Deno.execPath(), ["--version"]);
 * if (code !== 0 || !stdout.startsWith("deno ")) throw new Error("deno did not run");
 * ```
 */
export async function runCommand(
  cmd: string,
  args: string[],
  options: {
    stdin?: string | Uint8Array;
    env?: Record<string, string>;
    /** Starts from an empty environment (plus `env`). @default {false} */
    clearEnv?: boolean;
    cwd?: string;
  } = {},
): Promise<CommandResult> {
  const child = new Deno.Command(cmd, {
    args,
    cwd: options.cwd,
    env: { NO_COLOR: "1", ...options.env },
    clearEnv: options.clearEnv ?? false,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(
      typeof options.stdin === "string" ? new TextEncoder().encode(options.stdin) : options.stdin,
    );
    await writer.close();
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}
