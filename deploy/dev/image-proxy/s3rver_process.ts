/**
 * The S3 server's own process: `@20minutes/s3rver` (the root `deno.json`'s imports, so
 * `deno.lock` pins it and `deno install` fetches it with every other package), started by
 * {@linkcode startS3Server} in `s3_server.ts`. It prints one JSON line `{"port": n}` once it listens and runs
 * until its stdin closes (so it never outlives the process that started it). When it cannot
 * listen it says why in one line on stderr (`Cannot listen on 127.0.0.1:8092: the address is
 * already in use`) and exits 1.
 *
 * Arguments: `<hostname> <port> <directory> <bucket>...`
 *
 * @module
 */

// A process of its own: its own event loop (as in production, the store is not the proxy's
// process), and a failure to listen ends it, not the process that started it.
//
// The package declares a `bin` (bin/s3rver.js) it does not ship. Deno sets up the bins of the
// packages in node_modules when the lock says they have one, and on a missing one warns on stderr
// of every `deno` process of the workspace (services included, whose output is JSON lines), at
// every start. So its entry in deno.lock carries no `"bin": true`: nothing of ours runs its bin,
// and `s3_server_test.ts` fails, saying what to remove, when a lock update puts the flag back.
import S3rverPackage from "@20minutes/s3rver";

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
const S3rver = S3rverPackage as unknown as new (options: S3rverOptions) => S3rverInstance;
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
