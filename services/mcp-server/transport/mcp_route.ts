/**
 * `POST /mcp` once its request is authorized: its JSON body read within bounds, then a fresh MCP
 * server and Streamable HTTP transport per request over what the tools share. A module of its own
 * because it holds everything of the MCP SDK, zod and ajv the server needs: `app.ts` loads it
 * when the first `/mcp` request comes (or once the first answer has gone out: `serve.ts`), so
 * the health routes answer before it is loaded.
 *
 * @module
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { readBody } from "@svc/shared/http";
import { type CapabilityServerOptions, createServerFactory } from "../tools/server.ts";
import type { ExecutePool } from "../execute/pool.ts";
import type { AuthenticatedHandler } from "./bearer_auth.ts";
import { type EndpointError, jsonRpcError } from "./endpoint_error.ts";
import type { RouteContext } from "@svc/shared/http";
import { missingScopes, type StepUp } from "../auth/step_up.ts";
import { programScopes } from "../auth/program_scopes.ts";
import { resolveLimits } from "../limits.ts";

/** The status logged for a request whose client went away (nginx's 499; never delivered). */
const CLIENT_CLOSED_REQUEST = 499;

/** Answers one authorized `/mcp` request (`auth` its verified token). */
export type McpRoute = AuthenticatedHandler;

/** Options of {@linkcode createMcpRoute}. */
export interface McpRouteOptions extends CapabilityServerOptions {
  /** The execute workers every request's server shares. */
  pool: ExecutePool;
  /** Largest accepted request body, bytes. */
  maxBodyBytes: number;
  /** Time a request body may take to arrive, ms. */
  bodyTimeoutMs: number;
  /**
   * The 403 `insufficient_scope` of a request whose programs need these scopes (all of them:
   * the challenge's `scope`); used when `stepUp` is set.
   */
  insufficientScope?: (ctx: RouteContext, needed: readonly string[]) => EndpointError;
}

const MALFORMED = Symbol("malformed");
const utf8Length = (text: string) => new TextEncoder().encode(text).length;
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

/**
 * The sources of the `execute` calls of a JSON-RPC message or batch, each within the source
 * bound (a larger one fails `resource limit exceeded` without running, so it needs no scope).
 */
function executeSources(body: unknown, maxSourceBytes: number): string[] {
  const sources: string[] = [];
  for (const message of Array.isArray(body) ? body : [body]) {
    const params = (message as { method?: unknown; params?: unknown } | null)?.method ===
        "tools/call"
      ? (message as { params?: { name?: unknown; arguments?: { source?: unknown } } }).params
      : undefined;
    const source = params?.name === "execute" ? params.arguments?.source : undefined;
    if (typeof source === "string" && utf8Length(source) <= maxSourceBytes) sources.push(source);
  }
  return sources;
}

/**
 * Step-up over HTTP: the scopes the request's programs need when its token lacks one of them
 * (then all they need), else undefined.
 */
function scopesToStepUp(
  stepUp: StepUp,
  capabilities: readonly string[],
  sources: readonly string[],
  granted: readonly string[],
): string[] | undefined {
  const needed = new Set<string>();
  for (const source of sources) {
    for (const scope of programScopes(stepUp, source, capabilities)) needed.add(scope);
  }
  return missingScopes([...needed], granted).length > 0 ? [...needed].sort() : undefined;
}

/** Builds the shared tool state once and returns the handler of authorized requests. */
export function createMcpRoute(options: McpRouteOptions): McpRoute {
  const { maxBodyBytes, bodyTimeoutMs, insufficientScope, ...serverOptions } = options;
  const newServer = createServerFactory(serverOptions);
  const bodyBounds = { limit: maxBodyBytes, timeoutMs: bodyTimeoutMs };
  const { stepUp, registry } = serverOptions;
  const maxSourceBytes = resolveLimits(serverOptions.limits).maxSourceBytes;
  return async (req, ctx, auth) => {
    const parsedBody = await readJson(req, bodyBounds);
    if (parsedBody === MALFORMED) {
      throw jsonRpcError(400, "parse_error", -32700, "Parse error: malformed JSON");
    }
    if (stepUp && insufficientScope) {
      const sources = executeSources(parsedBody, maxSourceBytes);
      const needed = sources.length === 0 ? undefined : scopesToStepUp(
        stepUp,
        registry.enabled().map((capability) => capability.name),
        sources,
        auth.scopes,
      );
      if (needed) throw insufficientScope(ctx, needed);
    }
    const server = newServer();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    // The client went away: close the server, which aborts its in-flight tool calls (a running
    // execute ends as `context canceled` and its worker is freed, as Go's request context does),
    // and end the request at once: the SDK's transport never settles a request whose server was
    // closed, and a request left open holds a graceful shutdown for its whole grace period.
    let disconnected = () => {};
    const gone = new Promise<Response>((resolve) => {
      disconnected = () => {
        void server.close().catch(() => {});
        resolve(new Response(null, { status: CLIENT_CLOSED_REQUEST }));
      };
    });
    // It may have left while its token was verified or its body read, before this listener.
    if (req.signal.aborted) disconnected();
    else req.signal.addEventListener("abort", disconnected, { once: true });
    try {
      if (req.signal.aborted) return await gone;
      return await Promise.race([
        transport.handleRequest(req, { authInfo: auth, parsedBody }),
        gone,
      ]);
    } finally {
      req.signal.removeEventListener("abort", disconnected);
      await server.close();
    }
  };
}
