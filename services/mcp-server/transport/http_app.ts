/**
 * The Streamable HTTP transport (stateless): `POST /mcp` with a verified bearer token gets a fresh
 * MCP server and transport per request (sharing the registry and the execute pool); JSON
 * responses, no sessions, no server-initiated streams. Also the RFC 9728 metadata and the kit's
 * health, readiness and metrics routes, inside the kit's default middleware stack.
 *
 * @example
 * ```ts ignore
 * const handler = createHttpApp({ registry, authorizer, limits, pool, verifier, logger });
 * Deno.serve({ hostname: "127.0.0.1", port: 8090 }, handler);
 * ```
 * @module
 */
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import {
  createRouter,
  type Handler,
  readBody,
  type Route,
  withDefaultStack,
} from "@svc/shared/http";
import type { Logger } from "@svc/shared/log";
import type { Metrics } from "@svc/shared/metrics";
import { lazyModuleAt } from "@svc/shared/lazy-module";
import { operationalRoutes } from "@svc/shared/operational";
import type { CapabilityRegistry } from "../capabilities/registry.ts";
import type { Authorizer } from "../auth/authorizer.ts";
import { type BearerVerifier, InvalidToken } from "../auth/bearer.ts";
import type { ExecutePool } from "../execute/pool.ts";
import type { Limits } from "../limits.ts";
import type { ToolContext } from "../tools/server.ts";
import type { McpRoute } from "./mcp_route.ts";
import {
  hasScopes,
  insufficientScopeResponse,
  MCP_PATH,
  METADATA_PATH,
  protectedResourceMetadata,
  resourceUri,
  unauthorizedResponse,
} from "./protected_resource.ts";

/**
 * The MCP route's module (the MCP SDK, zod, ajv, the tools), by URL:
 * shared/lifecycle/lazy_module.ts.
 */
const mcpRouteModule = lazyModuleAt<typeof import("./mcp_route.ts")>(
  import.meta.resolve("./mcp_route.ts"),
);

/** Options of {@linkcode createHttpApp}. */
export interface HttpAppOptions {
  registry: CapabilityRegistry;
  authorizer: Authorizer;
  limits: Limits;
  pool: ExecutePool;
  verifier: BearerVerifier;
  logger: Logger;
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
  /** Largest accepted request body, bytes. @default 4 MiB */
  maxBodyBytes?: number;
  /** Time a request body may take to arrive, ms. @default 10000 */
  bodyTimeoutMs?: number;
  /** Bound on time to the response head, ms (execute time plus queueing). @default 60000 */
  requestTimeoutMs?: number;
}

/** The subject of an HTTP call: the `sub` of its verified bearer token. */
function bearerResolver(context: ToolContext): { id: string } {
  const subject = context.authInfo?.extra?.subject;
  if (typeof subject !== "string" || subject === "") throw new Error("no verified subject");
  return { id: subject };
}

const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/;

/** Whether a request's `Origin` may call `/mcp` (absent: not a browser, allowed). */
export function originAllowed(
  origin: string | null,
  allowed: ReadonlySet<string>,
): boolean {
  return origin === null || LOOPBACK_ORIGIN.test(origin) || allowed.has(origin);
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}

const MALFORMED = Symbol("malformed");
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads and parses a JSON body. A function of its own so that the body's bytes and text are
 * garbage once parsed, not held by the request's frame while its calls wait for a worker.
 */
async function readJson(
  req: Request,
  options: { limit: number; timeoutMs: number },
): Promise<unknown> {
  const bytes = await readBody(req, options);
  try {
    return JSON.parse(utf8.decode(bytes));
  } catch {
    return MALFORMED;
  }
}

/** Builds the HTTP handler. */
export function createHttpApp(options: HttpAppOptions): Handler {
  const { verifier, logger, maxBodyBytes = 4 << 20, bodyTimeoutMs = 10_000 } = options;
  const originOf = (url: URL) => options.publicOrigin ?? url.origin;
  const scopes = options.scopes ?? [];
  const allowedOrigins = new Set(options.allowedOrigins ?? []);
  if (options.publicOrigin) allowedOrigins.add(options.publicOrigin);
  // What every request's server shares (search index, execute, handlers) is built once, on the
  // first `/mcp` request or after the first answer: the MCP SDK, zod and ajv are most of this
  // server's module loading, and the health routes need none of them.
  let route: Promise<McpRoute> | undefined;
  const prepare = () =>
    route ??= mcpRouteModule().then(({ createMcpRoute }) =>
      createMcpRoute({
        registry: options.registry,
        resolver: bearerResolver,
        authorizer: options.authorizer,
        limits: options.limits,
        pool: options.pool,
        logger,
        observe: options.observe,
      })
    );

  const authenticate = async (req: Request, origin: string): Promise<AuthInfo | Response> => {
    const header = req.headers.get("authorization");
    const match = header ? /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header) : null;
    const challenge = { origin, scopes };
    if (!header) return unauthorizedResponse(challenge, false);
    if (!match) return unauthorizedResponse(challenge, true);
    try {
      const info = await verifier.verify(match[1], { resource: resourceUri(origin) });
      return hasScopes(info.scopes, scopes) ? info : insufficientScopeResponse(challenge);
    } catch (err) {
      if (err instanceof InvalidToken) return unauthorizedResponse(challenge, true);
      logger.warn("bearer verification unavailable", { error: (err as Error).message });
      return jsonRpcError(503, -32603, "Authorization server unavailable");
    }
  };

  const mcp = async (req: Request, url: URL): Promise<Response> => {
    if (!originAllowed(req.headers.get("origin"), allowedOrigins)) {
      await req.body?.cancel().catch(() => {});
      return jsonRpcError(403, -32000, "Forbidden: Origin not allowed");
    }
    const auth = await authenticate(req, originOf(url));
    if (auth instanceof Response) {
      await req.body?.cancel().catch(() => {});
      return auth;
    }
    const parsedBody = await readJson(req, { limit: maxBodyBytes, timeoutMs: bodyTimeoutMs });
    if (parsedBody === MALFORMED) return jsonRpcError(400, -32700, "Parse error: malformed JSON");
    return (await prepare())(req, auth, parsedBody);
  };

  const metadata = (_req: Request, ctx: { url: URL }) =>
    Response.json(protectedResourceMetadata(originOf(ctx.url), verifier.issuer, scopes));
  const routes: Route[] = [
    ...operationalRoutes({ metrics: options.metrics }),
    { method: ["GET", "HEAD"], pattern: METADATA_PATH, handler: metadata },
    { method: ["GET", "HEAD"], pattern: `${METADATA_PATH}${MCP_PATH}`, handler: metadata },
    { method: "POST", pattern: MCP_PATH, handler: (req, ctx) => mcp(req, ctx.url) },
  ];
  const handler = withDefaultStack(createRouter(routes), {
    logger,
    metrics: options.metrics,
    requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
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
  // The first answer (a health probe, usually) starts loading what `/mcp` needs, in the
  // background: loading it any earlier would hold that first answer back.
  let started = false;
  return async (req, ctx) => {
    const res = await handler(req, ctx);
    if (!started) {
      started = true;
      setTimeout(() => { // a failure answers the first /mcp
        prepare().catch(() => {});
        verifier.prepare().catch(() => {});
      }, 0);
    }
    return res;
  };
}
