/**
 * A local S3-compatible server for `deno task dev` and the tests: `@20minutes/s3rver` from the
 * npm registry on loopback, in a process of its own (`s3rver_process.ts` says why), with SigV4
 * signature checks on (its only credentials are `S3RVER` / `S3RVER`).
 *
 * @module
 */

/** The credentials s3rver accepts. */
export const S3RVER_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" } as const;

/** Options of {@linkcode startS3Server}. */
export interface S3ServerOptions {
  /** Buckets created at start. */
  buckets: string[];
  /** @default {"127.0.0.1"} */
  hostname?: string;
  /** @default {0} (a free port) */
  port?: number;
  /** Where objects are kept. @default a temporary directory removed by `close()` */
  directory?: string;
}

/** A running S3 server. */
export interface S3Server {
  /** e.g. `http://127.0.0.1:41234` */
  endpoint: string;
  port: number;
  close(): Promise<void>;
}

const PROCESS = new URL("./s3rver_process.ts", import.meta.url).pathname;
/** The workspace's configuration: its import map and lock pin the package, wherever we run. */
const CONFIG = new URL("../../../deno.json", import.meta.url).pathname;

/**
 * Starts s3rver in its own process and waits until it listens.
 *
 * @example Usage
 * ```ts ignore
 * import { startS3Server } from "./s3_server.ts";
 * const s3 = await startS3Server({ buckets: ["mirror"] });
 * // … point an S3 client at s3.endpoint with forcePathStyle and S3RVER_CREDENTIALS
 * await s3.close();
 * ```
 */
export async function startS3Server(options: S3ServerOptions): Promise<S3Server> {
  const { hostname = "127.0.0.1", port = 0 } = options;
  const directory = options.directory ?? await Deno.makeTempDir({ prefix: "s3rver-" });
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      `--config=${CONFIG}`,
      "--frozen",
      "--quiet",
      `--allow-net=${hostname}`,
      `--allow-read`,
      `--allow-write=${directory}`,
      "--allow-env",
      "--allow-sys",
      PROCESS,
      hostname,
      String(port),
      directory,
      ...options.buckets,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const line = await firstLine(child.stdout);
  if (line === undefined) {
    await child.stdin.close().catch(() => {});
    const { code } = await child.status;
    throw new Error(
      `Cannot start the S3 server: ${oneLine(await stderr) || `it exited with ${code}`}`,
    );
  }
  const { port: bound } = JSON.parse(line) as { port: number };
  return {
    endpoint: `http://${hostname}:${bound}`,
    port: bound,
    async close() {
      await child.stdin.close().catch(() => {});
      await child.status;
      await stderr;
      if (options.directory === undefined) {
        await Deno.remove(directory, { recursive: true }).catch(() => {});
      }
    },
  };
}

/**
 * The one line that says why the S3 process failed: its own (`Cannot listen on …`), else Deno's
 * `error: …` line of an uncaught error (a package that cannot be loaded), else its last line.
 */
function oneLine(stderr: string): string {
  const lines = stderr.split("\n").map((l) => l.trim()).filter(Boolean);
  return lines.find((l) => l.startsWith("Cannot ")) ??
    lines.find((l) => l.startsWith("error: "))?.replace(
      /^error: (Uncaught (\(in promise\) )?)?/,
      "",
    ) ??
    lines.at(-1) ?? "";
}

/** Reads the first line of `stream`, then drains the rest in the background. */
async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string | undefined> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) return undefined;
    text += value;
  }
  (async () => {
    while (!(await reader.read()).done) { /* the process prints nothing else */ }
  })();
  return text.slice(0, text.indexOf("\n"));
}
