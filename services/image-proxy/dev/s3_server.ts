/**
 * A local S3-compatible server for `deno task dev` and the tests: `@20minutes/s3rver` on
 * loopback, with SigV4 signature checks on (its only credentials are `S3RVER` / `S3RVER`).
 *
 * @module
 */
import { createRequire } from "node:module";

// The vendored copy is CommonJS (see tests/fakes/s3rver/VENDORED.md).
const S3rver = createRequire(import.meta.url)("../../../tests/fakes/s3rver/lib/s3rver.js");

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

/**
 * Starts s3rver.
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
  const server = new S3rver({
    address: hostname,
    port,
    silent: true,
    directory,
    allowMismatchedSignatures: false,
    vhostBuckets: false,
    configureBuckets: options.buckets.map((name) => ({ name })),
  });
  const info = await server.run() as { port: number };
  return {
    endpoint: `http://${hostname}:${info.port}`,
    port: info.port,
    async close() {
      await server.close();
      if (options.directory === undefined) {
        await Deno.remove(directory, { recursive: true }).catch(() => {});
      }
    },
  };
}
