/**
 * Assembles a running proxy from resolved settings: the S3 store, the stream limiter, the cached
 * readiness probe on the lifecycle's shutdown signal, the handler, and the kit's server with the
 * shutdown delay and grace. Writes the contract's lifecycle records (docs/image-proxy.md#logs)
 * (`server_starting`, `server_listening`, `shutdown_started`, `shutdown_completed` /
 * `shutdown_forced`).
 *
 * @module
 */
import { createLifecycle, createReadinessProbe, type ReadinessProbe } from "@svc/shared/lifecycle";
import type { Logger } from "@svc/shared/log";
import { type ShutdownReport, startServer } from "@svc/shared/server";
import type { EnvLookup } from "@svc/shared/settings";
import type { S3ClientConfig } from "@aws-sdk/client-s3";
import { firstAnswer, requestIdOf, withRequestId } from "@svc/shared/http";
import { createApp } from "./app.ts";
import { errorBody, proxyError } from "./errors.ts";
import { normalizePrefix } from "./object/target.ts";
import type { ProxySettings } from "./settings.ts";
import { s3EndpointOf, SETTINGS } from "./settings.ts";
import { permissionOf } from "./store/errors.ts";
import { checkStorageGrant, netGrantHint } from "./store/permission.ts";
import { catalogReasonOf, checkCatalog } from "./store/catalog_probe.ts";
import { lazyStore } from "./store/lazy_store.ts";
import { createStreamLimiter, type StreamLimiter } from "./stream/limiter.ts";
import { NO_TELEMETRY, type Telemetry } from "./telemetry.ts";
import { lazyModuleAt } from "@svc/shared/lazy-module";

// By URL (the kit's `lazyModuleAt`): a literal `import("./store/s3_store.ts")` would have
// `deno run` resolve the AWS SDK's packages on every start (≈ 100 ms CPU), though the store loads
// later. In image-proxy's `include` (deploy/by_url_include_test.ts).
const s3StoreModule = lazyModuleAt<typeof import("./store/s3_store.ts")>(
  import.meta.resolve("./store/s3_store.ts"),
);

/**
 * How long after the listener opens the AWS SDK starts loading when no request has been answered
 * by then (the first answer starts it sooner).
 */
const SDK_LOAD_AFTER_MS = 250;

/** Options of {@linkcode startProxy}. */
export interface StartProxyOptions {
  env: EnvLookup;
  /** Carries `service.name` and `service.version`. */
  logger: Logger;
  telemetry?: Telemetry;
  /** Flushes telemetry at the end of the shutdown. */
  onShutdown?: () => Promise<void>;
  /** Storage credentials. @default the AWS SDK's default provider chain */
  credentials?: S3ClientConfig["credentials"];
  /** Listen for SIGTERM/SIGINT. @default {true} */
  handleSignals?: boolean;
}

/** A running proxy. */
export interface RunningProxy {
  url: string;
  probe: ReadinessProbe;
  limiter: StreamLimiter;
  /** Starts the shutdown (as SIGTERM does) and resolves when it is over. */
  shutdown(): Promise<ShutdownReport>;
  finished: Promise<ShutdownReport>;
}

/**
 * Starts the proxy.
 *
 * @example Usage
 * ```ts ignore
 * import { startProxy } from "./proxy.ts";
 * const proxy = await startProxy(SETTINGS.resolve({ args }).values, { env, logger });
 * await proxy.finished;
 * ```
 */
export async function startProxy(
  values: ProxySettings,
  options: StartProxyOptions,
): Promise<RunningProxy> {
  const { env, logger, telemetry = NO_TELEMETRY } = options;
  const serverLog = logger.child({ component: "server" });
  serverLog.info("server_starting", { listen: values.listen });
  const endpoint = s3EndpointOf(values["s3.endpoint"], env);
  checkStorageGrant(
    endpoint,
    `${SETTINGS.names("s3.endpoint")} (or AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL)`,
  );
  const lifecycle = createLifecycle({
    logger: logger.child({ component: "lifecycle" }),
    handleSignals: options.handleSignals ?? true,
  });
  const prefix = normalizePrefix(values.prefix);
  // The AWS SDK loads after the first answer (below), or with the first storage request when
  // that comes first (`lazy_store.ts`).
  const store = lazyStore(async () => {
    const { createS3Store } = await s3StoreModule();
    return createS3Store({
      bucket: values.bucket,
      region: values.region,
      endpoint,
      forcePathStyle: values["s3.force_path_style"],
      timeoutMs: values["proxy.upstream_idle_timeout"],
      credentials: options.credentials,
      observe: (event) => telemetry.storeRequest(event),
    });
  });
  const limiter = createStreamLimiter(values["proxy.max_streams"]);
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
  const probe = createReadinessProbe({
    check: (signal) => checkCatalog(store, prefix, signal).catch(logDenied),
    reasonOf: catalogReasonOf,
    staleReason: "s3_unavailable",
    intervalMs: values["proxy.readiness_interval"],
    stalenessMs: values["proxy.readiness_staleness"],
    shutdownSignal: lifecycle.signal,
    logger: logger.child({ component: "readiness" }),
    onChange: (state) => telemetry.readiness(state.ready),
  });
  const app = createApp({
    objects: {
      store,
      prefix,
      limiter,
      upstreamIdleMs: values["proxy.upstream_idle_timeout"],
      writeIdleMs: values["proxy.write_idle_timeout"],
      servedNatively: true, // the kit's server is Deno.serve
      events: {
        rejected: () => telemetry.streamRejected(),
        ended: (result) => telemetry.streamEnded(result),
      },
    },
    readyz: probe.handler,
    logger,
    telemetry,
  });
  lifecycle.signal.addEventListener("abort", () => {
    serverLog.info("shutdown_started", {
      "delay_ms": values["proxy.shutdown_delay"],
      "grace_ms": values["proxy.shutdown_grace"],
      "active_streams": limiter.active,
    });
  }, { once: true });
  // The kit's own lifecycle lines duplicate the contract's records; only its warnings remain.
  const kitLogger = warningsOf(serverLog);
  const first = firstAnswer(app, { maxWaitMs: SDK_LOAD_AFTER_MS, signal: lifecycle.signal });
  const server = await startServer([{
    name: "api",
    addr: values.listen,
    handler: first.handler,
    setting: SETTINGS.names("listen"),
    netGrant: netGrantHint,
  }], {
    logger: kitLogger,
    lifecycle,
    shutdownDelay: values["proxy.shutdown_delay"],
    shutdownGrace: values["proxy.shutdown_grace"],
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
      store.destroy();
      await options.onShutdown?.();
    },
  });
  // The AWS SDK is most of the proxy's module loading (≈ 230 ms CPU), and its evaluation holds
  // the event loop: loaded right after listening, it held back whichever request came first (a
  // liveness probe, usually) by that much. So it loads once the first answer has gone out, or
  // SDK_LOAD_AFTER_MS after listening when no request comes; an object request that comes first
  // loads it itself, through the lazy store, and waits for it. Until the probe's first check has
  // finished, /readyz answers `starting` (docs/image-proxy.md#readiness-and-shutdown).
  // The probe starts once the SDK has loaded: its timeout bounds storage, not module loading
  // (which, on a busy machine, holds the event loop longer than a probe interval).
  lifecycle.spawn("readiness", async (signal) => {
    await first.answered;
    if (signal.aborted) return;
    await store.load().catch(() => {}); // a failure shows in the probe's own first call
    await probe.run(signal);
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
    probe,
    limiter,
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
