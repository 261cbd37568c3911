/**
 * mock-oidc entry: read flags and JSON configuration, build the core and app, listen.
 * Invalid configuration stops startup with one line naming the key (exit code 2).
 *
 * @module
 */

import { createLifecycle } from "@svc/shared/lifecycle";
import { createLogger } from "@svc/shared/log";
import { createMetrics } from "@svc/shared/metrics";
import { type ListenerSpec, readTlsFiles, startServer } from "@svc/shared/server";
import { resolveSettings, settingsHelp } from "@svc/shared/settings";
import { createApp, createAppState } from "./app.ts";
import { ConfigError } from "./config/config_error.ts";
import { checkListenAddr, resolveListenAddr } from "./config/listen_addr.ts";
import { loadJsonConfig } from "./config/load_config.ts";
import { selfSignedCertificate, type TlsPair } from "./config/self_signed_cert.ts";
import { createCore } from "./core.ts";
import { createSigner, type Signer, type SignerName } from "./keys/signer.ts";
import { planListeners } from "./ops/listener_plan.ts";
import { SETTINGS } from "./settings.ts";
import service from "./deno.json" with { type: "json" };

/** Options of {@linkcode main}. */
export interface MainOptions {
  /** Command-line arguments. */
  args: string[];
  /** Environment lookup. */
  env: (name: string) => string | undefined;
}

/** Resolve configuration, start the listeners and wait until shutdown. */
export async function main(options: MainOptions): Promise<void> {
  const { values } = resolveSettings(SETTINGS, { args: options.args, env: options.env });
  const { config } = await loadJsonConfig({ env: options.env });
  const tls = await tlsOf(values, config.selfSignedTls);
  const logger = createLogger({
    level: values["log-level"] as "info",
    format: values["log-format"] as "json",
    fields: { service: "mock-oidc" },
  });
  const plan = planListeners({
    api: resolveListenAddr({
      addr: values["addr"] as string,
      serverHostname: values["server-hostname"] as string,
      serverPort: values["server-port"] as number,
    }),
    metricsAddr: values["metrics-addr"] as string,
    controlAddr: values["control-addr"] as string,
  });
  checkListenAddr(plan.api, values["addr"] ? "--addr" : "--server-hostname/--server-port");
  if (plan.metrics) checkListenAddr(plan.metrics, "--metrics-addr");
  if (plan.control) checkListenAddr(plan.control, "--control-addr");
  const signer = signerOf(values);
  // Worker threads start beside the listeners (JWKS needs no signing); closed at shutdown.
  const signerReady = signer.ready();
  signerReady.catch(() => {}); // awaited below
  const state = createAppState(createMetrics({ service: "mock-oidc" }));
  const core = createCore(config, { signer, callbacks: state.scenarios });
  // Loaded only when enabled: the OpenTelemetry SDK costs hundreds of ms of startup.
  const tracing = values["tracing-enabled"]
    ? (await import("@svc/shared/tracing")).createTracing({
      serviceName: "mock-oidc",
      serviceVersion: service.version,
      route: (req) => app.routeOf(req),
    })
    : undefined;
  // SIGTERM/SIGINT start the shutdown; /readyz reports draining from then on.
  const lifecycle = createLifecycle({ logger });
  // A waiting take would hold the drain until its timeoutMs; end it as shutdown starts.
  lifecycle.signal.addEventListener("abort", () => state.requests.endWaiters(), { once: true });
  // Set once the API listener is up; mint on a dedicated control listener names this origin.
  const api: { origin?: string } = {};
  const app = createApp({
    core,
    state,
    logger,
    options: {
      controlEnabled: values["control-enabled"] as boolean,
      controlToken: values["control-token"] as string,
      dedicatedControl: plan.control !== undefined,
      metricsOnApi: plan.metrics === undefined,
      corsAllowedOrigins: values["cors-allowed-origins"] as string[],
      trustedProxyHeader: values["trusted-proxy-header"] as string,
      rateLimit: values["rate-limit-enabled"]
        ? { rps: values["rate-limit-rps"] as number, burst: values["rate-limit-burst"] as number }
        : undefined,
      requestTimeoutMs: values["request-timeout"] as number,
      staticAssetsPath: config.staticAssetsPath,
      tracing,
      version: service.version,
      apiOrigin: () => api.origin,
      shutdownSignal: lifecycle.signal,
    },
  });
  const listeners: ListenerSpec[] = [{ name: "api", addr: plan.api, handler: app.api, tls }];
  if (plan.metrics) listeners.push({ name: "metrics", addr: plan.metrics, handler: app.metrics });
  if (plan.control && app.control) {
    listeners.push({ name: "control", addr: plan.control, handler: app.control });
  }
  const server = await startServer(listeners, {
    logger,
    lifecycle,
    shutdownGrace: values["shutdown-grace"] as number,
    timeouts: {
      readHeaderMs: values["read-header-timeout"] as number,
      readMs: values["read-timeout"] as number,
      writeMs: values["write-timeout"] as number,
      idleMs: values["idle-timeout"] as number,
    },
    onShutdown: async () => {
      await tracing?.shutdown();
      await signer.close();
    },
  });
  api.origin = server.urls.api?.replace(/:\/\/(0\.0\.0\.0|\[::\]):/, "://localhost:");
  try {
    await signerReady;
  } catch (err) {
    await server.shutdown();
    throw new ConfigError("--signer", (err as Error).message);
  }
  logger.info("mock-oidc ready", {
    signer: core.signer,
    signerThreads: values["signer-threads"] || navigator.hardwareConcurrency,
    algorithm: config.algorithm,
  });
  await server.finished;
}

function signerOf(values: Record<string, unknown>): Signer {
  try {
    return createSigner({
      signer: values["signer"] as SignerName,
      threads: values["signer-threads"] as number,
      libcrypto: values["signer-libcrypto"] as string,
    });
  } catch (err) {
    throw new ConfigError("--signer", (err as Error).message);
  }
}

async function tlsOf(
  values: Record<string, unknown>,
  selfSigned: boolean,
): Promise<TlsPair | undefined> {
  const files = await readTlsFiles({
    certFile: values["tls-cert-file"] as string,
    keyFile: values["tls-key-file"] as string,
  }, { cert: "--tls-cert-file", key: "--tls-key-file" });
  return files ?? (selfSigned ? await selfSignedCertificate() : undefined);
}

function fail(message: string): never {
  Deno.stderr.writeSync(new TextEncoder().encode(`mock-oidc: ${message}\n`));
  Deno.exit(2);
}

const USAGE = `Usage: mock-oidc [flags]

A test-only OpenID Connect / OAuth 2.0 provider with a /_mock control plane.
Every flag also reads MOCK_OIDC_<FLAG> (flag > environment > default); the JSON configuration
comes from JSON_CONFIG, JSON_CONFIG_PATH or ./config.json.

Flags:
`;

if (import.meta.main) {
  if (Deno.args.includes("--help") || Deno.args.includes("-h")) {
    Deno.stdout.writeSync(new TextEncoder().encode(USAGE + settingsHelp(SETTINGS) + "\n"));
    Deno.exit(0);
  }
  try {
    await main({ args: Deno.args, env: (name) => Deno.env.get(name) });
  } catch (err) {
    const known = err instanceof ConfigError || (err as Error)?.name === "SettingsError";
    if (!known) throw err;
    fail((err as Error).message.split("\n")[0]);
  }
}
