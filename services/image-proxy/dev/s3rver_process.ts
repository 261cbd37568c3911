/**
 * The S3 server's own process: `@20minutes/s3rver` from the npm registry, started by
 * {@linkcode startS3Server} in `s3_server.ts` with `--no-config --node-modules-dir=none` and its
 * own lock file (`s3rver.lock`). It prints one JSON line `{"port": n}` once it listens and runs
 * until its stdin closes (so it never outlives the process that started it). When it cannot
 * listen it says why in one line on stderr (`Cannot listen on 127.0.0.1:8092: the address is
 * already in use`) and exits 1.
 *
 * Arguments: `<hostname> <port> <directory> <bucket>...`
 *
 * @module
 */

// Why a process of its own, outside the workspace's node_modules: the package declares a `bin`
// it does not ship, and a workspace holding it in node_modules makes Deno 2.9 warn about that on
// stderr of every `deno` process that loads an npm package, services included, which breaks
// their JSON-only output. Loaded from Deno's global cache (`--node-modules-dir=none`) no bin is
// set up. The specifier is not a literal so that checking the workspace does not pull the
// package into its node_modules and deno.lock; this process's lock file pins it instead.
const SPECIFIER = "npm:@20minutes/s3rver@5.0.0";

interface S3rverOptions {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
  /** false: a request whose SigV4 (or V2) signature does not match is refused with 403. */
  allowMismatchedSignatures: boolean;
  vhostBuckets: boolean;
  configureBuckets: { name: string }[];
}
interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}

const [hostname, port, directory, ...buckets] = Deno.args;
const { default: S3rver } = await import(SPECIFIER) as {
  default: new (options: S3rverOptions) => S3rverInstance;
};
const server = new S3rver({
  address: hostname,
  port: Number(port),
  silent: true,
  directory,
  allowMismatchedSignatures: false,
  vhostBuckets: false,
  configureBuckets: buckets.map((name) => ({ name })),
});
/** Ends the process with one line on stderr saying why it cannot serve. */
function cannotListen(err: unknown): never {
  const code = (err as { code?: string })?.code;
  const why = code === "EADDRINUSE"
    ? "the address is already in use"
    : code === "EACCES"
    ? "permission denied"
    : code === "EADDRNOTAVAIL"
    ? "the address is not available on this host"
    : String((err as Error)?.message ?? err).split("\n")[0];
  Deno.stderr.writeSync(new TextEncoder().encode(`Cannot listen on ${hostname}:${port}: ${why}\n`));
  Deno.exit(1);
}
// The HTTP server's listen error is an "error" event nobody handles: uncaught, not a rejection of
// run(). Until it listens, any such error ends the process in one line instead of a stack trace.
const onError = (e: ErrorEvent) => {
  e.preventDefault();
  cannotListen(e.error);
};
globalThis.addEventListener("error", onError);
const info = await server.run().catch(cannotListen);
globalThis.removeEventListener("error", onError);
await Deno.stdout.write(new TextEncoder().encode(JSON.stringify({ port: info.port }) + "\n"));
// Lives until whoever started it closes our stdin (or exits).
for await (const _ of Deno.stdin.readable) { /* nothing is sent; wait for EOF */ }
await server.close();
