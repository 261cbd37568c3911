/**
 * The settings table of mcp-server (`SETTINGS`): flag > environment variable (`MCP_<KEY>`) >
 * default, and `Settings`, the values it resolves to. Every limit of the capability tools is a
 * setting.
 * @module
 */
import { defineSettings } from "@svc/shared/settings";
import { DEFAULT_LIMITS, type Limits } from "./limits.ts";

const defaults = DEFAULT_LIMITS;
const positive = { min: 1 } as const;

/** Whether `text` is exactly a web origin (what a browser sends in `Origin`). */
function isOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return /^https?:$/.test(url.protocol) && url.origin === text;
  } catch {
    return false;
  }
}

/** The table. */
export const SETTINGS = defineSettings({
  prefix: "MCP",
  settings: {
    transport: {
      type: "string",
      choices: ["stdio", "http"],
      default: "stdio",
      help: "stdio or http (stateless Streamable HTTP)",
    },
    addr: { type: "string", default: "127.0.0.1:8090", help: "HTTP listen address (host:port)" },
    metrics_addr: {
      type: "string",
      default: "",
      help: "separate metrics listener (host:port); empty serves /metrics on --addr",
    },
    policy: {
      type: "string",
      default: "",
      help: "authorization policy file (JSON); empty: the demo host's allow-own-capabilities rule",
    },
    subject: { type: "string", default: "local", help: "stdio: the subject every call runs as" },
    issuer: {
      type: "string",
      default: "",
      help: "http: OIDC issuer URL whose JWKS verifies bearer tokens (required for http)",
    },
    audience: {
      type: "string",
      default: "",
      help: "http: opt-in: an aud accepted besides the resource URI <public origin>/mcp, for an " +
        "issuer that mints tokens without RFC 8707 resource (never a client's id: its ID tokens " +
        "carry it); empty: the resource URI only",
    },
    scopes: {
      type: "list",
      default: ["mcp"],
      help: "http: scopes a bearer token must carry (metadata scopes_supported, challenge " +
        "scope=; without them 403 insufficient_scope); empty: none",
      validate: (scopes: string[]) =>
        scopes.every((scope) => /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope))
          ? undefined
          : "must list scope tokens (printable ASCII, no space, quote or backslash)",
    },
    public_origin: {
      type: "string",
      default: "",
      help: "http: public origin (scheme://host[:port]) of metadata URLs and of the resource URI " +
        "<origin>/mcp tokens must name in aud (default: the request's origin)",
      validate: (origin: string) =>
        origin === "" || isOrigin(origin)
          ? undefined
          : "must be an origin: scheme://host[:port], no path",
    },
    allowed_origins: {
      type: "list",
      default: [],
      help: "http: browser origins (scheme://host[:port]) allowed to call /mcp besides loopback " +
        "ones and --public-origin; a request carrying any other Origin gets 403 " +
        "(DNS-rebinding protection, as the MCP transport requires)",
      validate: (origins: string[]) =>
        origins.every(isOrigin) ? undefined : "must list origins: scheme://host[:port], no path",
    },
    openapi: {
      type: "list",
      default: [],
      help: "OpenAPI 3.0/3.1 documents to expose, NAME=URL|FILE (repeatable; JSON or YAML): " +
        "each operation becomes the capability NAME.<operation>",
    },
    openapi_base_url: {
      type: "list",
      default: [],
      help: "per API, NAME=URL: the base URL calls go to (default: the document's first server)",
    },
    openapi_auth: {
      type: "list",
      default: [],
      help: "per API, NAME=bearer:VAR | basic:VAR (user:password) | header:NAME:VAR | " +
        "query:NAME:VAR; VAR is an MCP_* environment variable holding the secret",
    },
    openapi_wait: {
      type: "duration",
      default: 0,
      min: 0,
      help: "OpenAPI: how long start-up retries a document URL that cannot be reached yet " +
        "(peers starting alongside)",
    },
    openapi_timeout: {
      type: "duration",
      default: 10_000,
      ...positive,
      help: "OpenAPI: time for one call of an operation",
    },
    openapi_max_response_bytes: {
      type: "int",
      default: 4 * 1024 * 1024,
      ...positive,
      help: "OpenAPI: largest response body read",
    },
    mcp: {
      type: "list",
      default: [],
      help: "MCP servers to expose, NAME=URL (Streamable HTTP) or NAME=stdio:COMMAND ARG... (a " +
        "child process; needs --allow-run=COMMAND) (repeatable): each tool becomes the " +
        "capability NAME.<tool>",
    },
    mcp_auth: {
      type: "list",
      default: [],
      help: "per MCP server, NAME=bearer:VAR | basic:VAR (user:password) | header:NAME:VAR | " +
        "query:NAME:VAR; VAR is an MCP_* environment variable holding the secret",
    },
    mcp_timeout: {
      type: "duration",
      default: 10_000,
      ...positive,
      help: "MCP servers: time for listing the tools at start-up, and for one call (its " +
        "connection, or a stdio server's start, included)",
    },
    mcp_max_response_bytes: {
      type: "int",
      default: 4 * 1024 * 1024,
      ...positive,
      help: "MCP servers: largest HTTP response body, or stdio message line, read from one",
    },
    mcp_max_tools: {
      type: "int",
      default: 256,
      ...positive,
      help: "MCP servers: tools registered per server; the rest are listed as disabled",
    },
    list_capabilities: {
      type: "bool",
      default: false,
      help: "print every capability (signature, or disabled with its reason) and exit",
    },
    log_level: {
      type: "string",
      choices: ["debug", "info", "warn", "error"],
      default: "info",
      help: "log level",
    },
    max_query_bytes: {
      type: "int",
      default: defaults.maxQueryBytes,
      ...positive,
      help: "search: raw query bytes, before trimming",
    },
    max_search_results: {
      type: "int",
      default: defaults.maxSearchResults,
      ...positive,
      help: "search: results per call",
    },
    max_search_response_bytes: {
      type: "int",
      default: defaults.maxSearchResponseBytes,
      min: 64,
      help: "search: compact JSON bytes of {results, truncated}",
    },
    max_source_bytes: {
      type: "int",
      default: defaults.maxSourceBytes,
      ...positive,
      help: "execute: source bytes",
    },
    max_execution_steps: {
      type: "int",
      default: defaults.maxExecutionSteps,
      ...positive,
      help: "execute: Starlark steps",
    },
    max_execution_time: {
      type: "duration",
      default: defaults.maxExecutionMs,
      ...positive,
      help: "execute: elapsed time",
    },
    max_native_calls: {
      type: "int",
      default: defaults.maxNativeCalls,
      min: 0,
      help: "execute: capability calls",
    },
    max_value_depth: {
      type: "int",
      default: defaults.maxValueDepth,
      ...positive,
      help: "execute: depth of each argument, result and final value",
    },
    max_value_bytes: {
      type: "int",
      default: defaults.maxValueBytes,
      ...positive,
      help: "execute: bytes of each argument, result and final value",
    },
    max_intermediate_bytes: {
      type: "int",
      default: defaults.maxIntermediateBytes,
      min: 0,
      help: "execute: sum of capability result bytes per call",
    },
    max_alloc_bytes: {
      type: "int",
      default: defaults.maxAllocBytes,
      ...positive,
      help: "execute: bytes a program may allocate",
    },
    worker_heap_mb: {
      type: "int",
      default: defaults.workerHeapMb,
      min: 16,
      help: "execute: V8 heap limit of each worker (MiB)",
    },
    max_concurrent_executions: {
      type: "int",
      default: defaults.maxConcurrentExecutions,
      ...positive,
      help: "execute: programs running at once",
    },
    execution_queue_timeout: {
      type: "duration",
      default: defaults.executionQueueMs,
      ...positive,
      help: "execute: wait for a free worker",
    },
    max_queued_executions: {
      type: "int",
      default: defaults.maxQueuedExecutions,
      min: 0,
      max: 1_000_000,
      help: "execute: calls waiting for a free worker at once; more fail at once with " +
        "'resource limit exceeded' (bounds memory, see README)",
    },
  },
}); // deno-fmt-ignore

/** mcp-server's settings, resolved from {@linkcode SETTINGS}. */
export type Settings = ReturnType<typeof SETTINGS.resolve>["values"];

/** The limits resolved settings describe. */
export function limitsOf(settings: Settings): Limits {
  return {
    maxQueryBytes: settings.max_query_bytes,
    maxSearchResults: settings.max_search_results,
    maxSearchResponseBytes: settings.max_search_response_bytes,
    maxSourceBytes: settings.max_source_bytes,
    maxExecutionSteps: settings.max_execution_steps,
    maxExecutionMs: settings.max_execution_time,
    maxNativeCalls: settings.max_native_calls,
    maxValueDepth: settings.max_value_depth,
    maxValueBytes: settings.max_value_bytes,
    maxIntermediateBytes: settings.max_intermediate_bytes,
    maxAllocBytes: settings.max_alloc_bytes,
    workerHeapMb: settings.worker_heap_mb,
    maxConcurrentExecutions: settings.max_concurrent_executions,
    executionQueueMs: settings.execution_queue_timeout,
    maxQueuedExecutions: settings.max_queued_executions,
  };
}
