/**
 * `createCapabilityServer`: an MCP server with exactly three tools, `search_api`, `describe_api`
 * and `execute`. Inputs are strict (one required string; extra properties are rejected by the SDK
 * before the resolver runs); every valid call resolves a trusted subject first; success carries
 * `structuredContent` plus one JSON text mirror; failures are `isError` results with a stable
 * text and no structured content.
 *
 * @example
 * ```ts ignore
 * const server = createCapabilityServer({
 *   registry, resolver: () => ({ id: "alice" }), authorizer: allowAll(), limits: {},
 * });
 * await server.connect(new StdioServerTransport());
 * ```
 * @module
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type {
  CallToolResult,
  ServerNotification,
  ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { Capability, CapabilityRegistry, Subject } from "../capabilities/registry.ts";
import type { Authorizer } from "../auth/authorizer.ts";
import type { StepUp } from "../auth/step_up.ts";
import { type Limits, resolveLimits } from "../limits.ts";
import type { Logger } from "@svc/shared/log";
import { createExecutePool, type ExecutePool } from "../execute/pool.ts";

export { createExecutePool };
import { createSearch } from "./search_api.ts";
import { describeCapability } from "./describe_api.ts";
import { createExecute } from "./execute.ts";
import { ErrorText, errorText, ToolError } from "./errors.ts";
import { toJsonText } from "./json_size.ts";
import {
  DESCRIBE_DESCRIPTION,
  executeAnnotations,
  executeDescription,
  INSTRUCTIONS,
  searchDescription,
} from "./descriptions.ts";
import { IDENTITY } from "../identity.ts";

/** What the SDK hands a tool handler besides its arguments. */
export type ToolContext = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Resolves the trusted subject of a call (e.g. from the verified bearer token). */
export type InvocationResolver = (context: ToolContext) => Subject | Promise<Subject>;

/** Options of {@linkcode createCapabilityServer}. */
export interface CapabilityServerOptions {
  /** The host's capabilities. */
  registry: CapabilityRegistry;
  /** Resolves the trusted subject of every valid call, before any service work. */
  resolver: InvocationResolver;
  /** Decides every capability call (with canonical arguments). */
  authorizer: Authorizer;
  /** Bounds; missing fields take {@linkcode DEFAULT_LIMITS}. */
  limits?: Partial<Limits>;
  /** Receives unexpected failures (never resolver details or secrets). */
  logger?: Logger;
  /**
   * Execute workers to use. Pass one pool when building a server per request (stateless HTTP);
   * without it the server owns a pool and closes it when the server closes.
   */
  pool?: ExecutePool;
  /**
   * Observes each valid tool call: its tool, `ok` or the stable error text without its detail
   * (a bounded set, fit for a metric label), and its duration in seconds.
   */
  observe?: (tool: string, outcome: string, seconds: number) => void;
  /** Scopes capabilities require (the policy's `scopes`: step-up authorization). */
  stepUp?: StepUp;
  /**
   * Server name and version announced at initialization. @default the build's (`--version`:
   * `mcp-server` and build_info.json's version)
   */
  info?: { name: string; version: string };
}

// Built once: a stateless HTTP server builds a server per request, and zod compiles each schema
// instance on its first use.
const searchInput = z.strictObject({ query: z.string() });
const describeInput = z.strictObject({ name: z.string() });
const executeInput = z.strictObject({ source: z.string() });
const fieldRow = z.strictObject({ name: z.string(), type: z.string(), required: z.boolean() });
const searchOutput = z.strictObject({
  results: z.array(
    z.strictObject({ name: z.string(), signature: z.string(), summary: z.string() }),
  ),
  truncated: z.boolean(),
});
const describeOutput = z.strictObject({
  name: z.string(),
  signature: z.string(),
  summary: z.string(),
  description: z.string(),
  input: z.array(fieldRow),
  output: z.array(fieldRow),
});
/** `result`: null, boolean, string, int64, finite float, array or string-keyed object. */
const executeOutput = z.strictObject({
  result: z.union([
    z.null(),
    z.boolean(),
    z.string(),
    z.number(),
    z.array(z.unknown()),
    z.record(z.string(), z.unknown()),
  ]),
});

/** Builds the MCP server with the three capability tools. */
export function createCapabilityServer(options: CapabilityServerOptions): McpServer {
  const limits = resolveLimits(options.limits);
  const pool = options.pool ?? createExecutePool(limits);
  const server = createServerFactory({ ...options, limits, pool })();
  if (!options.pool) server.server.onclose = () => pool.close();
  return server;
}

/**
 * Builds what the tools share (the search index, the execute function, the handlers) once and
 * returns a function that makes a fresh MCP server over them: stateless HTTP needs a server per
 * request, and rebuilding the rest for each one cost a search index per `search_api` call.
 */
export function createServerFactory(
  options: CapabilityServerOptions & { pool: ExecutePool },
): () => McpServer {
  const { registry, resolver, authorizer, logger, pool } = options;
  const limits = resolveLimits(options.limits);
  const search = createSearch(registry, limits);
  const execute = createExecute({
    registry,
    authorizer,
    limits,
    pool,
    logger,
    stepUp: options.stepUp,
  });
  const info = options.info ?? { name: IDENTITY.name, version: IDENTITY.build.version };
  // The SDK's Server makes its own Ajv instance (≈ 90 KiB of heap) unless given one; it only
  // serves elicitation, which these tools never use. One for all servers of this factory.
  const serverOptions = {
    jsonSchemaValidator: new AjvJsonSchemaValidator(),
    instructions: INSTRUCTIONS,
  };
  const searchToolSpec = { ...SEARCH_TOOL, description: searchDescription(limits) };
  const executeToolSpec = { ...EXECUTE_TOOL, description: executeDescription(limits) };
  // execute's annotations follow the enabled capabilities; recomputed when they change.
  let annotated: { version: number; tool: typeof executeToolSpec & { annotations?: object } } = {
    version: -1,
    tool: executeToolSpec,
  };
  const executeToolNow = () => {
    if (annotated.version !== registry.version) {
      let annotations;
      try {
        annotations = executeAnnotations(registry.enabled());
      } catch (err) {
        // A host registry that cannot list its capabilities: assume the worst; its calls say why.
        logger?.error("cannot list capabilities for execute's annotations", {
          error: String(err),
        });
        annotations = executeAnnotations([{ readOnly: false, openWorld: true } as Capability]);
      }
      annotated = { version: registry.version, tool: { ...executeToolSpec, annotations } };
    }
    return annotated.tool;
  };

  const handle = async (
    tool: string,
    context: ToolContext,
    work: (subject: Subject) => Promise<object> | object,
  ): Promise<CallToolResult> => {
    const started = performance.now();
    const result = await run(context, work);
    if (options.observe) {
      const text = result.isError ? (result.content[0] as { text: string }).text : "ok";
      options.observe(tool, text.split(":")[0], (performance.now() - started) / 1000);
    }
    return result;
  };

  const run = async (
    context: ToolContext,
    work: (subject: Subject) => Promise<object> | object,
  ): Promise<CallToolResult> => {
    let subject: Subject;
    try {
      subject = await resolver(context);
    } catch {
      return failure(ErrorText.unauthenticated);
    }
    if (!subject || typeof subject.id !== "string" || subject.id === "") {
      return failure(ErrorText.unauthenticated);
    }
    try {
      const value = await work(subject);
      return {
        content: [{ type: "text", text: toJsonText(value) }],
        structuredContent: exact(value),
      };
    } catch (err) {
      if (!(err instanceof ToolError)) logger?.error("tool failed", { error: String(err) });
      return failure(errorText(err, context.signal));
    }
  };

  const searchTool = ({ query }: { query: string }, context: ToolContext) =>
    handle("search_api", context, () => search(query));
  const describeTool = ({ name }: { name: string }, context: ToolContext) =>
    handle("describe_api", context, () => describeCapability(registry, name));
  const executeTool = ({ source }: { source: string }, context: ToolContext) =>
    handle("execute", context, (subject) => execute(source, subject, context.signal));

  return function newServer(): McpServer {
    const server = new McpServer(info, serverOptions);
    server.registerTool("search_api", searchToolSpec, searchTool);
    server.registerTool("describe_api", DESCRIBE_TOOL, describeTool);
    server.registerTool("execute", executeToolNow(), executeTool);
    return server;
  };
}

const SEARCH_TOOL = {
  title: "Search capabilities",
  inputSchema: searchInput,
  outputSchema: searchOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
};
const DESCRIBE_TOOL = {
  title: "Describe a capability",
  description: DESCRIBE_DESCRIPTION,
  inputSchema: describeInput,
  outputSchema: describeOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
};
const EXECUTE_TOOL = {
  title: "Execute a Starlark program",
  inputSchema: executeInput,
  outputSchema: executeOutput,
};

function failure(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/** Structured content with exact big integers (as raw JSON numbers when the runtime has them). */
function exact(value: object): Record<string, unknown> {
  const raw = (JSON as unknown as { rawJSON?: (text: string) => unknown }).rawJSON;
  const walk = (node: unknown): unknown => {
    if (typeof node === "bigint") return raw ? raw(node.toString()) : Number(node);
    if (Array.isArray(node)) return node.map(walk);
    if (node && typeof node === "object") {
      return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, walk(child)]));
    }
    return node;
  };
  return walk(value) as Record<string, unknown>;
}
