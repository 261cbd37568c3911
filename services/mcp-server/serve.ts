/**
 * mcp-server's composition root: from resolved settings, the capabilities (the demo host's and
 * every operation of the `--openapi` APIs), the authorizer (the policy file, or the demo rule), the
 * execute worker pool, then the transport: MCP over stdio, or stateless Streamable HTTP (the app
 * of `app.ts` with its bearer verifier, metrics and listeners).
 *
 * @module
 */
import { createLogger, type Logger, stderrWriter } from "@svc/shared/log";
import { lazyModuleAt } from "@svc/shared/lazy-module";
import { createMetrics, metricsHandler } from "@svc/shared/metrics";
import { type ListenerSpec, startServer } from "@svc/shared/server";
import { type EnvLookup, SettingsError } from "@svc/shared/settings";
import { createApp } from "./app.ts";
import type { Authorizer } from "./auth/authorizer.ts";
import { createBearerVerifier } from "./auth/bearer.ts";
import { loadPolicy, policyAuthorizer } from "./auth/policy.ts";
import { type StepUp, stepUpOf } from "./auth/step_up.ts";
import type { CapabilityRegistry } from "./capabilities/registry.ts";
import { createDemoRegistry, demoAuthorizer } from "./demo/host.ts";
import { createExecutePool, type ExecutePool } from "./execute/pool.ts";
import { IDENTITY } from "./identity.ts";
import type { Limits } from "./limits.ts";
import type { ApiReport } from "./openapi/host.ts";
import { logApiReports } from "./openapi/startup_log.ts";
import { limitsOf, SETTINGS, type Settings } from "./settings.ts";
import { toolMetrics } from "./tool_metrics.ts";

// Loaded by URL only when the settings ask for them, so that a start without them does not even
// read them (shared/lifecycle/lazy_module.ts says why; each is in mcp-server's `include`).
const openApiHost = lazyModuleAt<typeof import("./openapi/host.ts")>(
  import.meta.resolve("./openapi/host.ts"),
);
const mcpUpstreamHost = lazyModuleAt<typeof import("./mcp_upstream/host.ts")>(
  import.meta.resolve("./mcp_upstream/host.ts"),
);
const stdioTransport = lazyModuleAt<typeof import("./transport/stdio.ts")>(
  import.meta.resolve("./transport/stdio.ts"),
);

/**
 * How long after the start the MCP route (the MCP SDK, zod, ajv) and the JWT library load when no
 * answer has gone out by then; the first answer (a health probe, usually) starts it sooner.
 */
const PREPARE_AFTER_MS = 5_000;

/** Options of {@linkcode serve} and {@linkcode loadCapabilities}. */
export interface ServeOptions {
  /** Where the `MCP_*` variables `--openapi-auth` names are read. @default Deno.env.get */
  env?: EnvLookup;
  /** @default JSON lines on stderr (stdout carries JSON-RPC under stdio), at `--log-level` */
  logger?: Logger;
}

/** A running server. */
export interface Serving {
  /** Base URL of each HTTP listener by name (`api`, `metrics`); empty under stdio. */
  urls: Record<string, string>;
  /** Resolves once the server has stopped (stdin ended, or the HTTP server shut down). */
  finished: Promise<void>;
  /** Stops serving; resolves once stopped. */
  shutdown(): Promise<void>;
}

/** The capabilities the settings describe. */
export interface Capabilities {
  registry: CapabilityRegistry;
  /** What each `--openapi` API and `--mcp` server registered and disabled. */
  apis: ApiReport[];
  /** Stops the `--mcp` stdio servers' processes; resolves once they have exited. */
  close(): Promise<void>;
}

/** The service's logger: JSON lines on stderr at `--log-level`. */
function serviceLogger(settings: Settings): Logger {
  return createLogger({ level: settings.log_level, write: stderrWriter(), service: IDENTITY });
}

/**
 * The demo host's registry with every operation of the `--openapi` APIs registered; each API is
 * logged with the counts of its enabled and disabled operations.
 * @throws {SettingsError} when an API cannot be used (one line naming it and the reason).
 */
export async function loadCapabilities(
  settings: Settings,
  options: ServeOptions = {},
): Promise<Capabilities> {
  const logger = options.logger ?? serviceLogger(settings);
  const env = options.env ?? ((name: string) => Deno.env.get(name));
  const registry = createDemoRegistry();
  let apis: ApiReport[] = [];
  const stops: (() => Promise<void>)[] = [];
  const close = async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
  // The OpenAPI host (document loading, operation mapping, calls) loads only when a setting names
  // an API: a server without one starts without its modules.
  if (
    settings.openapi.length + settings.openapi_base_url.length + settings.openapi_auth.length > 0
  ) {
    const { ApiError, apiSpecs, registerOpenApis } = await openApiHost();
    try {
      const specs = apiSpecs(settings.openapi, settings.openapi_base_url, settings.openapi_auth);
      apis = await registerOpenApis(registry, specs, {
        env: (name) => env(name),
        timeoutMs: settings.openapi_timeout,
        maxResponseBytes: settings.openapi_max_response_bytes,
        waitMs: settings.openapi_wait,
      });
    } catch (err) {
      if (err instanceof ApiError) throw new SettingsError("openapi", err.message);
      throw err;
    }
  }
  logApiReports(logger, apis);
  // Other MCP servers' tools (`--mcp`), loaded, like the OpenAPI host, only when named.
  if (settings.mcp.length + settings.mcp_auth.length > 0) {
    const { registerUpstreams, upstreamSpecs } = await mcpUpstreamHost();
    const { ApiError } = await openApiHost();
    let upstreams: ApiReport[];
    try {
      upstreams = await registerUpstreams(
        registry,
        upstreamSpecs(settings.mcp, settings.mcp_auth),
        {
          env: (name) => env(name),
          timeoutMs: settings.mcp_timeout,
          maxResponseBytes: settings.mcp_max_response_bytes,
          maxTools: settings.mcp_max_tools,
          // a stdio server's stderr, as log records (stdout carries JSON-RPC under stdio)
          log: (mcp, line) => logger.info("MCP server stderr", { mcp, line }),
          stops,
        },
      );
    } catch (err) {
      await close();
      if (err instanceof ApiError) throw new SettingsError("mcp", err.message);
      throw err;
    }
    logApiReports(logger, upstreams, "mcp");
    apis = [...apis, ...upstreams];
  }
  return { registry, apis, close };
}

/** `--list-capabilities`: every enabled signature, then each disabled operation and its reason. */
export function capabilityListing(capabilities: Capabilities): string {
  const lines = capabilities.registry.enabled().map((capability) => capability.signature);
  for (const api of capabilities.apis) {
    for (const disabled of api.disabled) {
      lines.push(`${disabled.name} (disabled: ${disabled.reason})`);
    }
  }
  return lines.join("\n") + "\n";
}

/**
 * The policy file's authorizer and step-up scopes, or the demo rule (its own and the APIs'
 * capabilities) and none.
 */
async function authorizerOf(
  settings: Settings,
  apis: readonly ApiReport[],
  logger: Logger,
): Promise<{ authorizer: Authorizer; stepUp?: StepUp }> {
  if (settings.policy) {
    const policy = await loadPolicy(settings.policy);
    const stepUp = stepUpOf(policy.scopes);
    logger.info("authorization policy loaded", {
      policy: settings.policy,
      stepUpScopes: stepUp?.all.join(" ") ?? "",
    });
    return { authorizer: policyAuthorizer(policy), stepUp };
  }
  const roots = apis.map((api) => api.name);
  logger.warn(
    "no --policy: the demo host allows its own demo capabilities (records.*, time.*) and the " +
      "--openapi APIs' and --mcp servers' to any subject",
    { apis: roots },
  );
  return { authorizer: demoAuthorizer(roots) };
}

/**
 * Wires the server the settings describe and starts its transport.
 * @throws {SettingsError} for settings it cannot honour (an http transport without an issuer, an
 * unusable `--openapi` API); a policy file that cannot be read or parsed throws its PolicyError.
 */
export async function serve(settings: Settings, options: ServeOptions = {}): Promise<Serving> {
  if (settings.transport === "http" && !settings.issuer) {
    throw new SettingsError(
      "issuer",
      `Cannot start the http transport: the OIDC issuer is required (set ${
        SETTINGS.names("issuer")
      })`,
    );
  }
  const logger = options.logger ?? serviceLogger(settings);
  const { registry, apis, close } = await loadCapabilities(settings, { ...options, logger });
  let pool: ExecutePool | undefined;
  let serving: Serving;
  try {
    const { authorizer, stepUp } = await authorizerOf(settings, apis, logger);
    const limits = limitsOf(settings);
    pool = createExecutePool(limits);
    const wired = { registry, authorizer, stepUp, limits, pool, logger };
    serving = settings.transport === "stdio"
      ? await serveStdio(settings, wired)
      : await serveHttp(settings, wired);
  } catch (err) {
    pool?.close();
    await close();
    throw err;
  }
  // the --mcp stdio servers stop after the transport: no call is left to need them
  const finished = serving.finished.finally(async () => {
    pool!.close();
    await close();
  });
  return { ...serving, finished, shutdown: () => serving.shutdown().then(() => finished) };
}

/** What both transports serve. */
interface Wired {
  registry: CapabilityRegistry;
  authorizer: Authorizer;
  stepUp?: StepUp;
  limits: Limits;
  pool: ExecutePool;
  logger: Logger;
}

async function serveStdio(settings: Settings, wired: Wired): Promise<Serving> {
  wired.logger.info("serving MCP on stdio", { subject: settings.subject });
  const { serveStdio } = await stdioTransport();
  const stdio = await serveStdio({ ...wired, subject: settings.subject });
  return {
    urls: {},
    finished: stdio.finished,
    shutdown: async () => {
      await stdio.close();
      await stdio.finished;
    },
  };
}

async function serveHttp(settings: Settings, wired: Wired): Promise<Serving> {
  const { logger } = wired;
  const metrics = createMetrics({ service: "mcp-server" });
  const app = createApp({
    ...wired,
    verifier: createBearerVerifier({ issuer: settings.issuer, audience: settings.audience }),
    scopes: settings.scopes,
    metrics: settings.metrics_addr ? undefined : metrics,
    observe: toolMetrics(metrics),
    publicOrigin: settings.public_origin || undefined,
    allowedOrigins: settings.allowed_origins,
  });
  const listeners: ListenerSpec[] = [
    { name: "api", addr: settings.addr, handler: app.handler, setting: SETTINGS.names("addr") },
  ];
  if (settings.metrics_addr) {
    listeners.push({
      name: "metrics",
      addr: settings.metrics_addr,
      handler: metricsHandler(metrics),
      setting: SETTINGS.names("metrics_addr"),
    });
  }
  const server = await startServer(listeners, {
    logger,
    // The first answer (a health probe, usually) starts loading what `/mcp` needs, in the
    // background: loading it any earlier would hold that first answer back. `prepare` never
    // rejects: a failure answers the first `/mcp` request.
    afterFirstAnswer: { maxWaitMs: PREPARE_AFTER_MS, start: () => app.prepare() },
  });
  logger.info("serving MCP over Streamable HTTP", {
    url: `${server.urls.api}/mcp`,
    issuer: settings.issuer,
    resource: settings.public_origin ? `${settings.public_origin}/mcp` : "<request origin>/mcp",
    audience: settings.audience,
    scopes: settings.scopes.join(" "),
  });
  return {
    urls: server.urls,
    finished: server.finished.then(() => {}),
    shutdown: () => server.shutdown().then(() => {}),
  };
}
