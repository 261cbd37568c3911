/**
 * mock-oidc's composition root: from the resolved settings and upstream's JSON configuration, the
 * logger, the signer, the state and core, tracing, the lifecycle and the app, then the listeners
 * (API, metrics, control) with the signing thread started after the first answer.
 *
 * @module
 */

import { IDENTITY } from "./identity.ts";
// Not `@svc/shared/lifecycle`: its readiness probe is not used here (a start loads less).
import { createLifecycle } from "@svc/shared/lifecycle/core";
import { createLogger } from "@svc/shared/log";
import { createMetrics } from "@svc/shared/metrics";
import {
  type ListenerSpec,
  readTlsFiles,
  type StartedServer,
  startServer,
} from "@svc/shared/server";
import { type App, createApp, createAppState } from "./app.ts";
import { configError } from "./config/config_error.ts";
import { loadJsonConfig } from "./config/load_config.ts";
import { checkListenAddr, resolveListenAddr } from "./config/listen_addr.ts";
import type { TlsPair } from "./config/self_signed_cert.ts";
import { createCore } from "./provider_state.ts";
import { createSigner, type Signer } from "./keys/signer.ts";
import { type ListenerPlan, planListeners } from "./serving/listener_plan.ts";
import { lazyModuleAt } from "@svc/shared/lazy-module";
import { SETTINGS, type Settings } from "./settings.ts";
import service from "./deno.json" with { type: "json" };

/** Options of {@linkcode serve}. */
export interface ServeOptions {
  /**
   * The environment upstream's JSON configuration is found in (`JSON_CONFIG`, `JSON_CONFIG_PATH`,
   * else `./config.json`, else the built-in defaults). @default Deno.env.get
   */
  env?: (name: string) => string | undefined;
  /**
   * SIGTERM and SIGINT start the shutdown (false in-process, where the host owns the signals).
   * @default {true}
   */
  handleSignals?: boolean;
}

/**
 * Wires mock-oidc from `values` and upstream's JSON configuration and starts its listeners;
 * resolves once they listen. `finished` settles after
 * the shutdown (SIGTERM, SIGINT), and rejects with a {@linkcode SettingsError} naming `--signer`
 * when the signing thread cannot start.
 *
 * @throws {SettingsError} naming the setting or configuration key that is not acceptable.
 */
export async function serve(
  values: Settings,
  options: ServeOptions = {},
): Promise<StartedServer> {
  const env = options.env ?? ((name: string) => Deno.env.get(name));
  const { config, warnings } = await loadJsonConfig({ env });
  const tls = await tlsOf(values, config.selfSignedTls);
  const logger = createLogger({
    level: values.log_level,
    format: values.log_format,
    service: IDENTITY,
  });
  for (const warning of warnings) logger.warn(warning);
  const plan = listenerPlanOf(values);
  if (
    values.control_enabled && !values.control_token && values.cors_allowed_origins.length === 0
  ) {
    logger.warn(
      "the control plane is open: no --control-token and CORS reflects any origin, so any web " +
        "page a browser on this machine opens can drive /_mock; set --control-token or " +
        "--cors-allowed-origins, or --control-enabled=false",
    );
  }
  const signer = await signerOf(values);
  const state = createAppState(createMetrics({ service: "mock-oidc" }), {
    captureMaxBytes: values.capture_max_bytes,
  });
  const core = createCore(config, {
    signer,
    callbacks: state.scenarios,
    metadataDocuments: {
      allowHttpLoopback: values.client_metadata_allow_http_loopback,
      allowPrivateNetworks: values.client_metadata_allow_private_networks,
    },
    codeRedirectUriOptional: values.code_redirect_uri_optional,
    publicBaseUrl: values.public_base_url || undefined,
    dpopNonceIssuers: values.dpop_nonce_issuers,
    parRequiredIssuers: values.par_required_issuers,
  });
  // Loaded only when enabled: the OpenTelemetry SDK costs hundreds of ms of startup.
  const tracing = values.tracing_enabled
    ? (await tracingModule()).createTracing({
      serviceName: "mock-oidc",
      serviceVersion: service.version,
      route: (req) => app.routeOf(req),
    })
    : undefined;
  // SIGTERM/SIGINT start the shutdown; /readyz reports draining from then on.
  const lifecycle = createLifecycle({ logger, handleSignals: options.handleSignals ?? true });
  // A waiting take would hold the drain until its timeoutMs; end it as shutdown starts.
  lifecycle.signal.addEventListener("abort", () => state.requests.endWaiters(), { once: true });
  // Set once the API listener is up; mint on a dedicated control listener names this origin.
  const api: { origin?: string } = {};
  const app = createApp({
    core,
    state,
    logger,
    options: {
      controlEnabled: values.control_enabled,
      controlToken: values.control_token,
      dedicatedControl: plan.control !== undefined,
      metricsOnApi: plan.metrics === undefined,
      corsAllowedOrigins: values.cors_allowed_origins,
      trustedProxyHeader: values.trusted_proxy_header,
      rateLimit: values.rate_limit_enabled
        ? { rps: values.rate_limit_rps, burst: values.rate_limit_burst }
        : undefined,
      requestTimeoutMs: values.request_timeout,
      staticAssetsPath: config.staticAssetsPath,
      tracing,
      version: service.version,
      apiOrigin: () => api.origin,
      shutdownSignal: lifecycle.signal,
    },
  });
  const listeners = listenersOf(plan, app, tls);
  const server = await startServer(listeners, {
    logger,
    lifecycle,
    shutdownGrace: values.shutdown_grace,
    timeouts: { readMs: values.read_timeout, writeMs: values.write_timeout },
    onShutdown: async () => {
      await tracing?.shutdown();
      await signer.close();
    },
    // The signing thread starts once the first answer has gone out (its start, ≈ 40 ms of the
    // event loop's CPU, would hold up that answer's write; discovery and JWKS need no signing, and
    // a token request that comes first starts it itself), or SIGNER_START_AFTER_MS after start
    // when no request comes; not at all when the shutdown comes first. Closed at shutdown.
    afterFirstAnswer: {
      maxWaitMs: SIGNER_START_AFTER_MS,
      start: async () => {
        try {
          await signer.ready();
        } catch (err) {
          throw configError("--signer", (err as Error).message);
        }
        logger.info("mock-oidc ready", {
          signer: core.signer,
          signerThreads: values.signer_threads || navigator.hardwareConcurrency,
          algorithm: config.algorithm,
        });
      },
    },
  });
  api.origin = server.urls.api?.replace(/:\/\/(0\.0\.0\.0|\[::\]):/, "://localhost:");
  return server;
}

// By URL, so that a start without them does not even read them (shared/lifecycle/lazy_module.ts).
const tracingModule = lazyModuleAt<typeof import("@svc/shared/tracing")>(
  import.meta.resolve("@svc/shared/tracing"),
);
const selfSignedCert = lazyModuleAt<typeof import("./config/self_signed_cert.ts")>(
  import.meta.resolve("./config/self_signed_cert.ts"),
);

/** Where each listener goes (`plan.control`: `/_mock` on its own listener), checked first. */
function listenerPlanOf(values: Settings): ListenerPlan {
  const plan = planListeners({
    api: resolveListenAddr({
      addr: values.addr,
      serverHostname: values.server_hostname,
      serverPort: values.server_port,
    }),
    metricsAddr: values.metrics_addr,
    controlAddr: values.control_addr,
  });
  checkListenAddr(plan.api, values.addr ? "--addr" : "--server-hostname/--server-port");
  if (plan.metrics) checkListenAddr(plan.metrics, "--metrics-addr");
  if (plan.control) checkListenAddr(plan.control, "--control-addr");
  return plan;
}

/** The listeners of `plan`, each with the handler `app` has for it and the setting moving it. */
function listenersOf(plan: ListenerPlan, app: App, tls: TlsPair | undefined): ListenerSpec[] {
  // --addr wins over SERVER_HOSTNAME/SERVER_PORT/PORT, so it is the one to name.
  const listeners: ListenerSpec[] = [
    { name: "api", addr: plan.api, handler: app.api, tls, setting: SETTINGS.names("addr") },
  ];
  if (plan.metrics) {
    const setting = SETTINGS.names("metrics_addr");
    listeners.push({ name: "metrics", addr: plan.metrics, handler: app.metrics, setting });
  }
  if (plan.control && app.control) {
    const setting = SETTINGS.names("control_addr");
    listeners.push({ name: "control", addr: plan.control, handler: app.control, setting });
  }
  return listeners;
}

/** How long after start the signing thread starts when no request has been answered. */
const SIGNER_START_AFTER_MS = 1000;

async function signerOf(
  values: { signer: Signer["name"]; signer_threads: number; signer_libcrypto: string },
): Promise<Signer> {
  try {
    return await createSigner({
      signer: values.signer,
      threads: values.signer_threads,
      libcrypto: values.signer_libcrypto,
    });
  } catch (err) {
    throw configError("--signer", (err as Error).message);
  }
}

async function tlsOf(
  values: { tls_cert_file: string; tls_key_file: string },
  selfSigned: boolean,
): Promise<TlsPair | undefined> {
  const files = await readTlsFiles({
    certFile: values.tls_cert_file,
    keyFile: values.tls_key_file,
  }, { cert: SETTINGS.names("tls_cert_file"), key: SETTINGS.names("tls_key_file") });
  // Its certificate builder loads only when asked for (`selfSignedTls`), not at every start.
  return files ??
    (selfSigned ? await (await selfSignedCert()).selfSignedCertificate() : undefined);
}
