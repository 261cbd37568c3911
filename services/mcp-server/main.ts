/**
 * mcp-server entry: `main.ts [--transport stdio|http] [flags]` (see `--help`). Builds the demo
 * host's registry, the authorizer (policy file, or the demo rule), the execute pool, then serves
 * MCP over stdio or stateless Streamable HTTP.
 * @module
 */
import { IDENTITY } from "./identity.ts";
import { createLogger, stderrWriter } from "@svc/shared/log";
import { lazyModuleAt } from "@svc/shared/lazy-module";
import { type MainIo, runMain } from "@svc/shared/main";
import { createMetrics } from "@svc/shared/metrics";
import { type ListenerSpec, startServer } from "@svc/shared/server";
import { SettingsError } from "@svc/shared/settings";
import type { EnvLookup } from "@svc/shared/settings";
import { loadPolicy, policyAuthorizer } from "./auth/policy.ts";
import { createBearerVerifier } from "./auth/bearer.ts";
import { createDemoRegistry, demoAuthorizer } from "./demo/host.ts";
import type { ApiReport } from "./openapi/host.ts";
import { logApiReports } from "./openapi/startup_log.ts";
import { limitsOf, SETTINGS } from "./settings.ts";
import { createExecutePool } from "./execute/pool.ts";
import { createHttpApp } from "./transport/http_app.ts";
import { toolMetrics } from "./tool_metrics.ts";

// Loaded by URL only when the settings ask for them, so that a start without them does not even
// read them (shared/lifecycle/lazy_module.ts says why; each is in mcp-server's `include`).
const openApiHost = lazyModuleAt<typeof import("./openapi/host.ts")>(
  import.meta.resolve("./openapi/host.ts"),
);
const stdioTransport = lazyModuleAt<typeof import("./transport/stdio.ts")>(
  import.meta.resolve("./transport/stdio.ts"),
);

const USAGE = `Usage: mcp-server [--transport stdio|http] [flags]

MCP server with three tools (search_api, describe_api, execute) over the demo host's
capabilities (records.*, time.now) and every operation of the --openapi documents
(NAME.<operation>). Flags (each also MCP_<KEY> in the environment):
`;

/** Runs the server; resolves to the exit code. */
export async function main(args: string[], env: EnvLookup, io: MainIo): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    io.out(USAGE + SETTINGS.help());
    return 0;
  }
  const { values, positionals } = SETTINGS.resolve({ args, env });
  if (positionals.length > 0) {
    throw new SettingsError("args", `Cannot start: unexpected argument (see --help)`);
  }
  const limits = limitsOf(values);
  // stdout carries JSON-RPC under stdio, so logs always go to stderr
  const logger = createLogger({
    level: values.log_level,
    write: stderrWriter(),
    service: IDENTITY,
  });
  const registry = createDemoRegistry();
  let apis: ApiReport[] = [];
  // The OpenAPI host (document loading, operation mapping, calls) loads only when a setting names
  // an API: a server without one starts without its modules.
  if (values.openapi.length + values.openapi_base_url.length + values.openapi_auth.length > 0) {
    const { ApiError, apiSpecs, registerOpenApis } = await openApiHost();
    try {
      const specs = apiSpecs(values.openapi, values.openapi_base_url, values.openapi_auth);
      apis = await registerOpenApis(registry, specs, {
        env: (name) => env(name),
        timeoutMs: values.openapi_timeout,
        maxResponseBytes: values.openapi_max_response_bytes,
        waitMs: values.openapi_wait,
      });
    } catch (err) {
      if (err instanceof ApiError) throw new SettingsError("openapi", err.message);
      throw err;
    }
  }
  logApiReports(logger, apis);
  if (values.list_capabilities) {
    const lines = registry.enabled().map((c) => c.signature);
    for (const api of apis) {
      for (const d of api.disabled) lines.push(`${d.name} (disabled: ${d.reason})`);
    }
    io.out(lines.join("\n") + "\n");
    return 0;
  }
  let authorizer;
  if (values.policy) {
    authorizer = policyAuthorizer(await loadPolicy(values.policy));
    logger.info("authorization policy loaded", { policy: values.policy });
  } else {
    const roots = apis.map((a) => a.name);
    authorizer = demoAuthorizer(roots);
    logger.warn(
      "no --policy: the demo host allows its own demo capabilities (records.*, time.*) and the " +
        "--openapi APIs' to any subject",
      { apis: roots },
    );
  }
  const pool = createExecutePool(limits);
  try {
    if (values.transport === "stdio") {
      logger.info("serving MCP on stdio", { subject: values.subject });
      const { serveStdio } = await stdioTransport();
      await serveStdio({ registry, authorizer, limits, pool, logger, subject: values.subject });
      return 0;
    }
    if (!values.issuer) {
      throw new SettingsError(
        "issuer",
        `Cannot start the http transport: the OIDC issuer is required (set ${
          SETTINGS.names("issuer")
        })`,
      );
    }
    const metrics = createMetrics({ service: "mcp-server" });
    const handler = createHttpApp({
      registry,
      authorizer,
      limits,
      pool,
      logger,
      verifier: createBearerVerifier({ issuer: values.issuer, audience: values.audience }),
      scopes: values.scopes,
      metrics: values.metrics_addr ? undefined : metrics,
      observe: toolMetrics(metrics),
      publicOrigin: values.public_origin || undefined,
      allowedOrigins: values.allowed_origins,
    });
    const listeners: ListenerSpec[] = [
      { name: "api", addr: values.addr, handler, setting: SETTINGS.names("addr") },
    ];
    if (values.metrics_addr) {
      const { metricsHandler } = await import("@svc/shared/metrics");
      listeners.push({
        name: "metrics",
        addr: values.metrics_addr,
        handler: metricsHandler(metrics),
        setting: SETTINGS.names("metrics_addr"),
      });
    }
    const server = await startServer(listeners, { logger });
    logger.info("serving MCP over Streamable HTTP", {
      url: `${server.urls.api}/mcp`,
      issuer: values.issuer,
      resource: values.public_origin ? `${values.public_origin}/mcp` : "<request origin>/mcp",
      audience: values.audience,
      scopes: values.scopes.join(" "),
    });
    await server.finished;
    return 0;
  } finally {
    pool.close();
  }
}

if (import.meta.main) await runMain(main, { name: "mcp-server", identity: IDENTITY });
