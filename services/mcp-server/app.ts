/**
 * The HTTP handler of the Streamable HTTP transport (stateless), from one route table: `POST /mcp`
 * with an allowed `Origin` and a verified bearer token gets a fresh MCP server and transport per
 * request (sharing the registry and the execute pool); JSON responses, no sessions, no
 * server-initiated streams. Beside it the RFC 9728 metadata and the kit's health, readiness and
 * metrics routes, inside the kit's default middleware stack.
 *
 * @example
 * ```ts ignore
 * const app = createApp({ registry, authorizer, limits, pool, verifier, logger });
 * Deno.serve({ hostname: "127.0.0.1", port: 8090 }, app.handler);
 * ```
 * @module
 */
import {
  createRouter,
  type Handler,
  type Route,
  type RouteHandler,
  withDefaultStack,
} from "@svc/shared/http";
import type { Logger } from "@svc/shared/log";
import type { Metrics } from "@svc/shared/metrics";
import { lazyModuleAt, onFirstUse } from "@svc/shared/lazy-module";
import { operationalRoutes } from "@svc/shared/operational";
import type { CapabilityRegistry, Subject } from "./capabilities/registry.ts";
import type { StepUp } from "./auth/step_up.ts";
import type { Authorizer } from "./auth/authorizer.ts";
import type { BearerVerifier } from "./auth/bearer.ts";
import type { ExecutePool } from "./execute/pool.ts";
import type { Limits } from "./limits.ts";
import type { ToolContext } from "./tools/server.ts";
import { bearerAuth } from "./transport/bearer_auth.ts";
import type { McpRoute } from "./transport/mcp_route.ts";
import { allowedOriginsOnly, originAllowed } from "./transport/origin.ts";
import {
  insufficientScopeError,
  MCP_PATH,
  METADATA_PATH,
  protectedResourceMetadata,
} from "./transport/protected_resource.ts";

/** The MCP route's module (the MCP SDK, zod, ajv, the tools). */
type McpRouteModule = typeof import("./transport/mcp_route.ts");

/** {@linkcode McpRouteModule}, loaded on first use by URL: shared/lifecycle/lazy_module.ts. */
const mcpRouteModule = lazyModuleAt<McpRouteModule>(
  import.meta.resolve("./transport/mcp_route.ts"),
);

/** What {@linkcode createApp} builds the handler from. */
export interface AppDeps {
  registry: CapabilityRegistry;
  authorizer: Authorizer;
  limits: Limits;
  pool: ExecutePool;
  verifier: BearerVerifier;
  logger: Logger;
  /** Serves `/metrics` on this handler (a server without a dedicated metrics listener). */
  metrics?: Metrics;
  /** Observes tool calls (tool, `ok` or the error text without detail, seconds). */
  observe?: (tool: string, outcome: string, seconds: number) => void;
  /**
   * Public origin: the metadata URLs and the canonical resource URI `<origin>/mcp` every token's
   * `aud` must name (RFC 8707). @default the request's origin
   */
  publicOrigin?: string;
  /**
   * Scopes every token must carry: `scopes_supported` of the metadata, `scope=` of the
   * challenges; a valid token without them gets 403 `insufficient_scope`. @default {[]}
   */
  scopes?: readonly string[];
  /**
   * Browser origins allowed on `/mcp` besides loopback origins and `publicOrigin`: a request with
   * any other `Origin` header gets 403 (DNS-rebinding protection: a page whose host name resolves
   * to this server is same-site to the browser, so the Host header cannot be trusted). Requests
   * without `Origin` (non-browser clients) are not affected. @default {[]}
   */
  allowedOrigins?: readonly string[];
  /**
   * Scopes capabilities require (the policy's `scopes`): a program naming one answers 403
   * `insufficient_scope` when the token lacks them; they join `scopes_supported`.
   */
  stepUp?: StepUp;
  /** Largest accepted request body, bytes. @default 4 MiB */
  maxBodyBytes?: number;
  /** Time a request body may take to arrive, ms. @default 10000 */
  bodyTimeoutMs?: number;
  /** Bound on time to the response head, ms (execute time plus queueing). @default 60000 */
  requestTimeoutMs?: number;
}

/** What {@linkcode createApp} returns. */
export interface App {
  /** The HTTP handler. */
  handler: Handler;
  /** The route table it dispatches on (docs/mcp-server.md#http-transport lists the same). */
  routes: readonly Route[];
  /**
   * Loads and builds what `/mcp` needs (the MCP SDK, zod, ajv, the tools' shared state, the JWT
   * library) ahead of the first `/mcp` request, which does it otherwise. Never rejects: a failure
   * answers that request.
   */
  prepare(): Promise<void>;
}

/** The subject of an HTTP call: the `sub` and the scopes of its verified bearer token. */
function bearerResolver(context: ToolContext): Subject {
  const subject = context.authInfo?.extra?.subject;
  if (typeof subject !== "string" || subject === "") throw new Error("no verified subject");
  return { id: subject, scopes: context.authInfo?.scopes ?? [] };
}

const READ = ["GET", "HEAD"] as const;

/** Builds the HTTP handler from the route table. */
export function createApp(deps: AppDeps): App {
  const { verifier, logger } = deps;
  const originOf = (url: URL) => deps.publicOrigin ?? url.origin;
  const scopes = deps.scopes ?? [];
  const allowedOrigins = new Set(deps.allowedOrigins ?? []);
  if (deps.publicOrigin) allowedOrigins.add(deps.publicOrigin);

  const fromAllowedOrigin = allowedOriginsOnly(allowedOrigins);
  const authenticated = bearerAuth({ verifier, scopes, logger, originOf });
  // What every request's server shares (search index, execute, handlers) is built once, on the
  // first `/mcp` request or by `prepare`: the MCP SDK, zod and ajv are most of this server's
  // module loading, and the health routes need none of them.
  let route: McpRoute | undefined;
  const built = (module: McpRouteModule): McpRoute =>
    route ??= module.createMcpRoute({
      registry: deps.registry,
      resolver: bearerResolver,
      authorizer: deps.authorizer,
      limits: deps.limits,
      pool: deps.pool,
      logger,
      observe: deps.observe,
      stepUp: deps.stepUp,
      insufficientScope: (ctx, needed) =>
        insufficientScopeError({
          origin: originOf(ctx.url),
          scopes: [...new Set([...scopes, ...needed])],
        }),
      maxBodyBytes: deps.maxBodyBytes ?? 4 << 20,
      bodyTimeoutMs: deps.bodyTimeoutMs ?? 10_000,
    });
  const supported = [...new Set([...scopes, ...(deps.stepUp?.all ?? [])])];
  const metadata: RouteHandler = (_req, ctx) =>
    Response.json(protectedResourceMetadata(originOf(ctx.url), verifier.issuer, supported));

  const routes: Route[] = [
    ...operationalRoutes({ metrics: deps.metrics }), // GET /healthz, /readyz (and /metrics)
    { method: READ, pattern: METADATA_PATH, handler: metadata },
    { method: READ, pattern: `${METADATA_PATH}${MCP_PATH}`, handler: metadata },
    {
      method: "POST",
      pattern: MCP_PATH,
      handler: fromAllowedOrigin(authenticated(onFirstUse(mcpRouteModule, built))),
    },
  ];

  const handler = withDefaultStack(createRouter(routes), {
    logger,
    metrics: deps.metrics,
    requestTimeoutMs: deps.requestTimeoutMs ?? 60_000,
    // A browser client (a web MCP client, the Inspector in direct mode) needs CORS: the origins
    // the DNS-rebinding check admits get it, nobody else; its script must read WWW-Authenticate
    // to find the authorization server after a 401.
    cors: {
      isAllowed: (origin) => originAllowed(origin, allowedOrigins),
      allowMethods: "POST, GET, OPTIONS",
      exposeHeaders: "WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version",
      maxAge: 600,
    },
  });
  return {
    handler,
    routes,
    prepare: async () => {
      await Promise.all([mcpRouteModule().then(built), verifier.prepare()]).catch(() => {});
    },
  };
}
