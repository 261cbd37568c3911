/**
 * image-proxy entry: `--help`, the settings, {@linkcode serve}, and the exit code: 0 when the
 * shutdown drained cleanly, 1 when downloads had to be cut (docs/image-proxy.md#readiness-and-shutdown).
 *
 * @module
 */
import { type MainIo, runMain } from "@svc/shared/main";
import { type EnvLookup, helpRequested } from "@svc/shared/settings";
import { IDENTITY } from "./identity.ts";
import { serve } from "./serve.ts";
import { SETTINGS } from "./settings.ts";

const HELP = "image-proxy: read-only HTTP proxy serving an image mirror out of S3\n\n" +
  "Usage: image-proxy --bucket NAME [flags]\n\n";

const CREDENTIALS = "\n\nStorage credentials come from the AWS SDK's default chain " +
  "(AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE with the shared files, web identity, " +
  "container and instance metadata). Collector headers come from OTEL_EXPORTER_OTLP_HEADERS.";

/**
 * Runs the proxy until it is shut down; resolves to the exit code.
 *
 * @example Usage
 * ```ts ignore
 * import { main } from "./main.ts";
 * const code = await main(["--bucket", "mirror"], (n) => Deno.env.get(n), io);
 * ```
 */
export async function main(args: string[], env: EnvLookup, io: MainIo): Promise<number> {
  if (helpRequested(args)) {
    io.out(HELP + SETTINGS.help() + CREDENTIALS);
    return 0;
  }
  const { values } = await SETTINGS.load({ args, env });
  const proxy = await serve(values, { env });
  const report = await proxy.finished;
  return report.forced ? 1 : 0;
}

if (import.meta.main) await runMain(main, { name: "image-proxy", identity: IDENTITY });
