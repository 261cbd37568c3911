/**
 * image-proxy entry: read the settings, build the store, the readiness probe and the handler,
 * listen, and shut down as docs/image-proxy.md#readiness-and-shutdown says (SIGTERM/SIGINT →
 * `draining` for `proxy.shutdown_delay`, then drain downloads up to `proxy.shutdown_grace`; exit 0
 * when the drain was clean, 1 when downloads had to be cut).
 *
 * @module
 */
import { createLogger, type LogLevel } from "@svc/shared/log";
import { type MainIo, runMain } from "@svc/shared/main";
import { helpRequested } from "@svc/shared/settings";
import type { EnvLookup } from "@svc/shared/settings";
import { startProxy } from "./proxy.ts";
import { metricsUrlOf, SETTINGS } from "./settings.ts";
import { IDENTITY, SERVICE_NAME, VERSION } from "./version.ts";
import { meteredTelemetry } from "./metrics.ts";
import { lazyModuleAt } from "@svc/shared/lazy-module";

// By URL (the kit's `lazyModuleAt`): a literal import would have `deno run` resolve the
// OpenTelemetry SDK's packages on every start (≈ 40 ms CPU), though metrics are off by default.
// In image-proxy's `include` (deploy/by_url_include_test.ts).
const otlpMetricsModule = lazyModuleAt<typeof import("@svc/shared/otlp-metrics")>(
  import.meta.resolve("@svc/shared/otlp-metrics"),
);

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
    io.out(
      "image-proxy: read-only HTTP proxy serving an image mirror out of S3\n\n" +
        "Usage: image-proxy --bucket NAME [flags]\n\n" + SETTINGS.help() +
        "\n\nStorage credentials come from the AWS SDK's default chain (AWS_ACCESS_KEY_ID/" +
        "AWS_SECRET_ACCESS_KEY, AWS_PROFILE with the shared files, web identity, container and " +
        "instance metadata). Collector headers come from OTEL_EXPORTER_OTLP_HEADERS.",
    );
    return 0;
  }
  const { values } = await SETTINGS.load({ args, env });
  const logger = createLogger({
    level: values["log.level"] as LogLevel,
    service: IDENTITY,
  });
  const url = metricsUrlOf(values["metrics.endpoint"], values["metrics.insecure"]);
  // No provider at all unless a collector is configured: metrics off costs nothing, not even
  // loading the OpenTelemetry SDK (≈ 8 MB of RSS: tests/bench/image_proxy).
  const metrics = url
    ? (await otlpMetricsModule()).createOtlpMetrics({
      url,
      serviceName: SERVICE_NAME,
      serviceVersion: VERSION,
      intervalMs: values["metrics.interval"],
      shutdownTimeoutMs: values["metrics.timeout"] ?? 3_000,
      logger: logger.child({ component: "metrics" }),
    })
    : undefined;
  const proxy = await startProxy(values, {
    env,
    logger,
    telemetry: metrics ? meteredTelemetry(metrics.meter) : undefined,
    onShutdown: () => metrics?.shutdown() ?? Promise.resolve(),
  });
  const report = await proxy.finished;
  return report.forced ? 1 : 0;
}

if (import.meta.main) await runMain(main, { name: "image-proxy", identity: IDENTITY });
