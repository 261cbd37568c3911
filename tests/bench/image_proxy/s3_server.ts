// deno-lint-ignore-file no-console -- prints its endpoint for the benchmark that spawned it
/**
 * s3rver in its own process for the benchmark (so the store, the proxy and the client each have
 * their own event loop): `deno run -A s3_server.ts <directory>` prints `{"endpoint": …}` and runs
 * until SIGTERM.
 *
 * @module
 */
import { startS3Server } from "../../../services/image-proxy/dev/s3_server.ts";

const s3 = await startS3Server({ buckets: ["bench"], directory: Deno.args[0] });
console.log(JSON.stringify({ endpoint: s3.endpoint }));
await new Promise<void>((resolve) => Deno.addSignalListener("SIGTERM", resolve));
await s3.close();
