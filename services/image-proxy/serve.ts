/**
 * The proxy's composition root: from resolved settings, the logger, the metrics (only with
 * `metrics.endpoint`), the S3 store (its SDK loaded after the first answer), the stream limiter,
 * the cached readiness probe on the lifecycle's shutdown signal, the handler, and the kit's server
 * with the shutdown delay and grace. Writes the contract's lifecycle records
 * (docs/image-proxy.md#logs): `server_starting`, `server_listening`, `shutdown_started`,
 * `shutdown_completed` / `shutdown_forced`.
 *
 * @module
 */
import { createLifecycle, createReadinessProbe } from "@svc/shared/lifecycle";
import { createLogger, type Logger, type LogLevel } from "@svc/shared/log";
import { type ShutdownReport, startServer } from "@svc/shared/server";
import type { EnvLookup } from "@svc/shared/settings";
import { requestIdOf, withRequestId } from "@svc/shared/http";
import { lazyModuleAt } from "@svc/shared/lazy-module";
import { createApp } from "./app.ts";
import { errorBody, proxyError } from "./errors.ts";
import { IDENTITY } from "./identity.ts";
import { meteredTelemetry } from "./metrics.ts";
import { createCacheDefaults } from "./object/cache_policy.ts";
import { normalizePrefix } from "./object/target.ts";
import { metricsUrlOf, s3EndpointOf, SETTINGS, type Settings } from "./settings.ts";
import { permissionOf } from "./store/errors.ts";
import { checkStorageGrant, netGrantHint } from "./store/permission.ts";
import { catalogReasonOf, checkCatalog } from "./store/catalog_probe.ts";
import { lazyStore } from "./store/lazy_store.ts";
import { createBreaker, failoverStore, type StoreName } from "./store/failover.ts";
import { createStreamLimiter } from "./stream/limiter.ts";
import { NO_TELEMETRY } from "./telemetry.ts";

// By URL (the kit's `lazyModuleAt`): a literal `import("./store/s3_store.ts")` would have
// `deno run` resolve the AWS SDK's packages on every start (≈ 100 ms CPU), though the store loads
// later. In image-proxy's `include` (deploy/by_url_include_test.ts).
const s3StoreModule = lazyModuleAt<typeof import("./store/s3_store.ts")>(
  import.meta.resolve("./store/s3_store.ts"),
);

// By URL too: a literal import would have `deno run` resolve the OpenTelemetry SDK's packages on
// every start (≈ 40 ms CPU), though metrics are off by default. In image-proxy's `include`.
const otlpMetricsModule = lazyModuleAt<typeof import("@svc/shared/otlp-metrics")>(
  import.meta.resolve("@svc/shared/otlp-metrics"),
);

/**
 * How long after the listener opens the AWS SDK starts loading when no request has been answered
 * by then (the first answer starts it sooner).
 */
const SDK_LOAD_AFTER_MS = 250;

/** Options of {@linkcode serve}. */
export interface ServeOptions {
  /** Environment lookup: the AWS SDK's endpoint variables (`AWS_ENDPOINT_URL_S3`, …). */
  env: EnvLookup;
  /** Where records go. @default JSON lines on stdout at `log.level`, with the service's identity */
  logger?: Logger;
  /** Listen for SIGTERM/SIGINT. @default {true} */
  handleSignals?: boolean;
}

/** A running proxy. */
export interface RunningProxy {
  /** Base URL of the listener, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** Starts the shutdown (as SIGTERM does) and resolves when it is over. */
  shutdown(): Promise<ShutdownReport>;
  /** Resolves when the shutdown is over; `forced` when downloads had to be cut. */
  finished: Promise<ShutdownReport>;
}

/**
 * Starts the proxy: wires its parts and listens on `listen`.
 *
 * @example Usage
 * ```ts ignore
 * import { serve } from "./serve.ts";
 * import { SETTINGS } from "./settings.ts";
 * const proxy = await serve(SETTINGS.resolve({ args: ["--bucket", "mirror"] }).values, { env });
 * await proxy.finished;
 * ```
 * @throws {SettingsError} for a store outside the network grant or a cleartext collector that is
 * not on loopback.
 */
export async function serve(settings: Settings, options: ServeOptions): Promise<RunningProxy> {
  const { env } = options;
  const logger = options.logger ??
    createLogger({ level: settings["log.level"] as LogLevel, service: IDENTITY });
  const url = metricsUrlOf(settings["metrics.endpoint"], settings["metrics.insecure"]);
  // No provider at all unless a collector is configured: metrics off costs nothing, not even
  // loading the OpenTelemetry SDK (≈ 8 MB of RSS: tests/bench/image_proxy).
  const metrics = url
    ? (await otlpMetricsModule()).createOtlpMetrics({
      url,
      serviceName: IDENTITY.name,
      serviceVersion: IDENTITY.build.version,
      intervalMs: settings["metrics.interval"],
      shutdownTimeoutMs: settings["metrics.timeout"] ?? 3_000,
      logger: logger.child({ component: "metrics" }),
    })
    : undefined;
  const telemetry = metrics ? meteredTelemetry(metrics.meter) : NO_TELEMETRY;
  const serverLog = logger.child({ component: "server" });
  serverLog.info("server_starting", { listen: settings.listen });
  const endpoint = s3EndpointOf(settings["s3.endpoint"], env);
  checkStorageGrant(
    endpoint,
    `${SETTINGS.names("s3.endpoint")} (or AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL)`,
  );
  const lifecycle = createLifecycle({
    logger: logger.child({ component: "lifecycle" }),
    handleSignals: options.handleSignals ?? true,
  });
  const prefix = normalizePrefix(settings.prefix);
  const secondBucket = settings["secondary.bucket"] || undefined;
  const secondEndpoint = secondBucket
    ? s3EndpointOf(settings["secondary.endpoint"], env)
    : undefined;
  if (secondBucket) {
    checkStorageGrant(
      secondEndpoint,
      `${SETTINGS.names("secondary.endpoint")} (or AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL)`,
      "secondary.endpoint",
    );
  }
  // The AWS SDK loads after the first answer (below), or with the first storage request when
  // that comes first (`lazy_store.ts`). With a secondary, store events say which store.
  const s3 = (name: StoreName, at: {
    bucket: string;
    region?: string;
    endpoint?: string;
    forcePathStyle: boolean;
  }) =>
    lazyStore(async () => {
      const { createS3Store } = await s3StoreModule();
      return createS3Store({
        ...at,
        timeoutMs: settings["proxy.upstream_idle_timeout"],
        observe: (event) =>
          telemetry.storeRequest(secondBucket ? { ...event, store: name } : event),
      });
    });
  const primary = s3("primary", {
    bucket: settings.bucket,
    region: settings.region,
    endpoint,
    forcePathStyle: settings["s3.force_path_style"],
  });
  const secondary = secondBucket
    ? s3("secondary", {
      bucket: secondBucket,
      region: settings["secondary.region"],
      endpoint: secondEndpoint,
      forcePathStyle: settings["secondary.force_path_style"],
    })
    : undefined;
  const probeIntervalMs = settings["failover.probe_interval"];
  const breaker = createBreaker({
    failures: settings["failover.failures"],
    probeIntervalMs,
    probe: () => checkCatalog(primary, prefix, AbortSignal.timeout(probeIntervalMs)),
    logger: logger.child({ component: "failover" }),
  });
  const store = secondary ? failoverStore(primary, secondary, breaker) : primary;
  const limiter = createStreamLimiter(settings["proxy.max_streams"]);
  // A probe denied by the permissions says which host and how to grant it (once per text, not
  // on every probe); readiness itself reports s3_misconfigured.
  let lastDenied: string | undefined;
  const logDenied = (err: unknown): never => {
    const permission = permissionOf(err);
    if (permission && permission !== lastDenied) {
      logger.child({ component: "readiness" }).error("storage permission denied", { permission });
    }
    lastDenied = permission;
    throw err;
  };
  // With a secondary: ready while either store is; a failing one is named as degraded.
  let degraded: { store: StoreName; reason: string } | undefined;
  const checkStores = async (signal: AbortSignal) => {
    if (!secondary) return await checkCatalog(primary, prefix, signal).catch(logDenied);
    const [p, s] = await Promise.allSettled([
      checkCatalog(primary, prefix, signal).catch(logDenied),
      checkCatalog(secondary, prefix, signal).catch(logDenied),
    ]);
    if (p.status === "rejected" && s.status === "rejected") throw p.reason;
    degraded = p.status === "rejected"
      ? { store: "primary", reason: catalogReasonOf(p.reason) }
      : s.status === "rejected"
      ? { store: "secondary", reason: catalogReasonOf(s.reason) }
      : undefined;
  };
  const probe = createReadinessProbe({
    check: checkStores,
    reasonOf: catalogReasonOf,
    staleReason: "s3_unavailable",
    intervalMs: settings["proxy.readiness_interval"],
    stalenessMs: settings["proxy.readiness_staleness"],
    shutdownSignal: lifecycle.signal,
    logger: logger.child({ component: "readiness" }),
    onChange: (state) => telemetry.readiness(state.ready),
  });
  const app = createApp({
    objects: {
      store,
      prefix,
      limiter,
      upstreamIdleMs: settings["proxy.upstream_idle_timeout"],
      writeIdleMs: settings["proxy.write_idle_timeout"],
      servedNatively: true, // the kit's server is Deno.serve
      cacheDefaults: createCacheDefaults({
        catalog: {
          patterns: settings["cache.catalog_paths"],
          control: settings["cache.catalog_control"],
        },
        artifact: {
          patterns: settings["cache.artifact_paths"],
          control: settings["cache.artifact_control"],
        },
      }),
      gzipCatalog: settings["proxy.gzip_catalog"],
      events: {
        rejected: () => telemetry.streamRejected(),
        ended: (result) => telemetry.streamEnded(result),
      },
    },
    readyz: (req) => degradedReadyz(probe.handler(req), degraded, req.method === "HEAD"),
    logger,
    telemetry,
  });
  lifecycle.signal.addEventListener("abort", () => {
    serverLog.info("shutdown_started", {
      "delay_ms": settings["proxy.shutdown_delay"],
      "grace_ms": settings["proxy.shutdown_grace"],
      "active_streams": limiter.active,
    });
  }, { once: true });
  // The kit's own lifecycle lines duplicate the contract's records; only its warnings remain.
  const kitLogger = warningsOf(serverLog);
  const server = await startServer([{
    name: "api",
    addr: settings.listen,
    handler: app,
    setting: SETTINGS.names("listen"),
    netGrant: netGrantHint,
  }], {
    logger: kitLogger,
    lifecycle,
    shutdownDelay: settings["proxy.shutdown_delay"],
    shutdownGrace: settings["proxy.shutdown_grace"],
    // Once the delay is over, new requests get the contract's error body (and an X-Request-ID).
    refuse: withRequestId((req) =>
      errorBody(
        proxyError("unavailable", "Cannot serve request: shutting down", {
          headers: { "Retry-After": "1" },
        }),
        { requestId: requestIdOf(req), head: req.method === "HEAD" },
      )
    ),
    async onShutdown() {
      primary.destroy();
      secondary?.destroy();
      await metrics?.shutdown();
    },
    // The AWS SDK is most of the proxy's module loading (≈ 230 ms CPU), and its evaluation holds
    // the event loop: loaded right after listening, it held back whichever request came first (a
    // liveness probe, usually) by that much. So it loads once the first answer has gone out, or
    // SDK_LOAD_AFTER_MS after listening when no request comes; an object request that comes
    // first loads it itself, through the lazy store, and waits for it. Until the probe's first
    // check has finished, /readyz answers `starting` (docs/image-proxy.md#readiness-and-shutdown).
    // The probe starts once the SDK has loaded: its timeout bounds storage, not module loading
    // (which, on a busy machine, holds the event loop longer than a probe interval).
    afterFirstAnswer: {
      maxWaitMs: SDK_LOAD_AFTER_MS,
      async start(signal) {
        // a failure shows in the probe's own first call
        await Promise.all([primary.load(), secondary?.load()]).catch(() => {});
        if (!signal.aborted) lifecycle.spawn("readiness", probe.run);
      },
    },
  });
  serverLog.info("server_listening", { listener: "api", url: server.urls.api });
  const finished = server.finished.then((report) => {
    serverLog.info(report.forced ? "shutdown_forced" : "shutdown_completed", {
      "active_streams": limiter.active,
    });
    return report;
  });
  return {
    url: server.urls.api,
    shutdown: () => server.shutdown().then(() => finished),
    finished,
  };
}

function warningsOf(logger: Logger): Logger {
  return {
    level: "warn",
    debug() {},
    info() {},
    warn: (msg, fields) => logger.warn(msg, fields),
    error: (msg, fields) => logger.error(msg, fields),
    child: (fields) => warningsOf(logger.child(fields)),
  };
}

/**
 * `/readyz` with a secondary store: a ready answer names the store that is failing, as
 * `{"status":"ready","degraded":"primary","reason":"s3_unavailable"}`.
 */
function degradedReadyz(
  answer: Response,
  degraded: { store: StoreName; reason: string } | undefined,
  head: boolean,
): Response {
  if (answer.status !== 200 || !degraded) return answer;
  const headers = new Headers(answer.headers);
  headers.delete("content-length");
  const body = { status: "ready", degraded: degraded.store, reason: degraded.reason };
  return new Response(head ? null : JSON.stringify(body), { status: 200, headers });
}
