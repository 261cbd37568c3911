/**
 * The settings table of mcp-server: flag > environment variable (`MCP_<KEY>`) > default.
 * Every limit of the capability tools is a setting.
 * @module
 */
import { defineSettings } from "@svc/shared/settings";
import { DEFAULT_LIMITS, type Limits } from "./limits.ts";

const d = DEFAULT_LIMITS;
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
      validate: (v: string[]) =>
        v.every((s) => /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s))
          ? undefined
          : "must list scope tokens (printable ASCII, no space, quote or backslash)",
    },
    public_origin: {
      type: "string",
      default: "",
      help: "http: public origin (scheme://host[:port]) of metadata URLs and of the resource URI " +
        "<origin>/mcp tokens must name in aud (default: the request's origin)",
      validate: (v: string) =>
        v === "" || isOrigin(v) ? undefined : "must be an origin: scheme://host[:port], no path",
    },
    allowed_origins: {
      type: "list",
      default: [],
      help: "http: browser origins (scheme://host[:port]) allowed to call /mcp besides loopback " +
        "ones and --public-origin; a request carrying any other Origin gets 403 " +
        "(DNS-rebinding protection, as the MCP transport requires)",
      validate: (v: string[]) =>
        v.every(isOrigin) ? undefined : "must list origins: scheme://host[:port], no path",
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
      default: d.maxQueryBytes,
      ...positive,
      help: "search: raw query bytes, before trimming",
    },
    max_search_results: {
      type: "int",
      default: d.maxSearchResults,
      ...positive,
      help: "search: results per call",
    },
    max_search_response_bytes: {
      type: "int",
      default: d.maxSearchResponseBytes,
      min: 64,
      help: "search: compact JSON bytes of {results, truncated}",
    },
    max_source_bytes: {
      type: "int",
      default: d.maxSourceBytes,
      ...positive,
      help: "execute: source bytes",
    },
    max_execution_steps: {
      type: "int",
      default: d.maxExecutionSteps,
      ...positive,
      help: "execute: Starlark steps",
    },
    max_execution_time: {
      type: "duration",
      default: d.maxExecutionMs,
      ...positive,
      help: "execute: elapsed time",
    },
    max_native_calls: {
      type: "int",
      default: d.maxNativeCalls,
      min: 0,
      help: "execute: capability calls",
    },
    max_value_depth: {
      type: "int",
      default: d.maxValueDepth,
      ...positive,
      help: "execute: depth of each argument, result and final value",
    },
    max_value_bytes: {
      type: "int",
      default: d.maxValueBytes,
      ...positive,
      help: "execute: bytes of each argument, result and final value",
    },
    max_intermediate_bytes: {
      type: "int",
      default: d.maxIntermediateBytes,
      min: 0,
      help: "execute: sum of capability result bytes per call",
    },
    max_alloc_bytes: {
      type: "int",
      default: d.maxAllocBytes,
      ...positive,
      help: "execute: bytes a program may allocate",
    },
    worker_heap_mb: {
      type: "int",
      default: d.workerHeapMb,
      min: 16,
      help: "execute: V8 heap limit of each worker (MiB)",
    },
    max_concurrent_executions: {
      type: "int",
      default: d.maxConcurrentExecutions,
      ...positive,
      help: "execute: programs running at once",
    },
    execution_queue_timeout: {
      type: "duration",
      default: d.executionQueueMs,
      ...positive,
      help: "execute: wait for a free worker",
    },
    max_queued_executions: {
      type: "int",
      default: d.maxQueuedExecutions,
      min: 0,
      max: 1_000_000,
      help: "execute: calls waiting for a free worker at once; more fail at once with " +
        "'resource limit exceeded' (bounds memory, see README)",
    },
  },
}); // deno-fmt-ignore

/** The limits a resolved settings table describes. */
export function limitsOf(v: ReturnType<typeof SETTINGS.resolve>["values"]): Limits {
  return {
    maxQueryBytes: v.max_query_bytes,
    maxSearchResults: v.max_search_results,
    maxSearchResponseBytes: v.max_search_response_bytes,
    maxSourceBytes: v.max_source_bytes,
    maxExecutionSteps: v.max_execution_steps,
    maxExecutionMs: v.max_execution_time,
    maxNativeCalls: v.max_native_calls,
    maxValueDepth: v.max_value_depth,
    maxValueBytes: v.max_value_bytes,
    maxIntermediateBytes: v.max_intermediate_bytes,
    maxAllocBytes: v.max_alloc_bytes,
    workerHeapMb: v.worker_heap_mb,
    maxConcurrentExecutions: v.max_concurrent_executions,
    executionQueueMs: v.execution_queue_timeout,
    maxQueuedExecutions: v.max_queued_executions,
  };
}
