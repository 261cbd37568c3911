/**
 * Other MCP servers as capability sources (`--mcp NAME=URL`, Streamable HTTP, or
 * `--mcp NAME=stdio:COMMAND ARG...`, a child process: `stdio.ts`): at start-up each
 * upstream's tools are listed (at most `--mcp-max-tools`) and each becomes the capability
 * `NAME.<tool in snake_case>`, its `inputSchema` and `outputSchema` mapped through the OpenAPI
 * schema mapping; a tool the notation cannot express is disabled with the reason. A call opens its
 * own connection (initialize, `tools/call`, the session's end, close) within `--mcp-timeout`, reading at most
 * `--mcp-max-response-bytes` per HTTP response; an `isError` result is `capability failed:
 * <its text>`. A stdio server is one process, started at start-up (its listing), shared by the
 * calls, started again by the next call after it ends, and stopped at shutdown (`stops`); its
 * message lines are bounded by `--mcp-max-response-bytes`. The tool list is read once: a tool the upstream adds later is not seen, one it
 * removes fails when called (docs/mcp-server.md#mcp-servers).
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { CapabilityRegistry } from "../capabilities/registry.ts";
import { capabilityNameProblem } from "../capabilities/names.ts";
import { t } from "../capabilities/schema.ts";
import type { Field } from "../capabilities/schema.ts";
import { AgentError } from "../tools/agent_error.ts";
import { IDENTITY } from "../identity.ts";
import { ApiError, type ApiReport, credentialOf, type DisabledKind } from "../openapi/host.ts";
import type { Credential } from "../openapi/call.ts";
import { identifierFor, snakeCase } from "../openapi/operation.ts";
import { fieldOf, schemaMapper, Unexpressible } from "../openapi/schema_map.ts";
import { ChildProcessTransport, LineTooLong, runGrantProblem } from "./stdio.ts";

/** One `--mcp NAME=URL` (with its `--mcp-auth`) or `--mcp NAME=stdio:COMMAND ARG...`. */
export interface UpstreamSpec {
  name: string;
  /** The URL, or `stdio:` and the command line, as given. */
  url: string;
  auth?: string;
  /** stdio: the program and its arguments. */
  command?: string[];
}

/** Bounds and environment of the upstream calls. */
export interface UpstreamOptions {
  /** Reads the `MCP_*` variable a `--mcp-auth` names. */
  env: (name: string) => string | undefined;
  /** Time for start-up's listing, and for each call (connection included), ms. */
  timeoutMs: number;
  /** Largest HTTP response body read from an upstream, bytes. */
  maxResponseBytes: number;
  /** Tools registered per upstream; the rest are reported disabled. */
  maxTools: number;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Receives each stderr line of a stdio server (never our stdout). */
  log?: (upstream: string, line: string) => void;
  /** Where each stdio server's stop goes, for the caller to run at shutdown. */
  stops?: (() => Promise<void>)[];
}

/** Parses `--mcp` and `--mcp-auth`. @throws {ApiError} (one line) */
export function upstreamSpecs(mcp: readonly string[], auths: readonly string[]): UpstreamSpec[] {
  const specs = new Map<string, UpstreamSpec>();
  for (const entry of mcp) {
    const [name, url] = pair(entry, "--mcp / MCP_MCP", "NAME=URL");
    const problem = capabilityNameProblem(`${name}.x`);
    if (problem) {
      throw new ApiError(
        `Cannot use MCP server "${name}": the name ${
          problem.replace(/^segment "[^"]*" /, "")
        } (--mcp / MCP_MCP)`,
      );
    }
    if (specs.has(name)) {
      throw new ApiError(`Cannot use MCP server "${name}": given twice (--mcp / MCP_MCP)`);
    }
    if (url.startsWith("stdio:")) {
      const command = url.slice("stdio:".length).trim().split(/\s+/).filter((w) => w !== "");
      if (command.length === 0) {
        throw new ApiError(
          `Cannot use MCP server "${name}": no command after stdio: (--mcp / MCP_MCP)`,
        );
      }
      specs.set(name, { name, url, command });
      continue;
    }
    if (!/^https?:\/\/[^/]/i.test(url) || !URL.canParse(url)) {
      throw new ApiError(
        `Cannot use MCP server "${name}": not an http(s) URL or stdio:COMMAND (--mcp / MCP_MCP)`,
      );
    }
    specs.set(name, { name, url });
  }
  for (const entry of auths) {
    const [name, auth] = pair(entry, "--mcp-auth / MCP_MCP_AUTH", "NAME=KIND:...");
    const spec = specs.get(name);
    if (!spec) {
      throw new ApiError(
        `Cannot use --mcp-auth for "${name}": no --mcp ${name}=... (MCP_MCP_AUTH)`,
      );
    }
    if (spec.command) {
      throw new ApiError(
        `Cannot use --mcp-auth for "${name}": a stdio server takes no credentials (MCP_MCP_AUTH)`,
      );
    }
    spec.auth = auth;
  }
  return [...specs.values()];
}

function pair(entry: string, setting: string, shape: string): [string, string] {
  const equals = entry.indexOf("=");
  if (equals <= 0 || equals === entry.length - 1) {
    throw new ApiError(`Cannot read ${setting}: want ${shape}, got "${entry.slice(0, 80)}"`);
  }
  return [entry.slice(0, equals), entry.slice(equals + 1)];
}

/** The answer was larger than the bound (the body stream errors with it). */
class TooLarge extends Error {
  constructor(readonly limit: number) {
    super(`response larger than ${limit} bytes`);
    this.name = "TooLarge";
  }
}

/**
 * A fetch for one connection: the credential applied, redirects not followed, every response
 * body cut at `maxBytes` (`state.tooLarge` set when one was).
 */
function boundedFetch(
  options: UpstreamOptions,
  credential: Credential | undefined,
  state: { tooLarge: boolean },
): typeof fetch {
  const base = options.fetch ?? fetch;
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init?.headers);
    if (credential?.kind === "bearer") headers.set("authorization", `Bearer ${credential.token}`);
    if (credential?.kind === "basic") {
      headers.set("authorization", `Basic ${btoa(credential.userPass)}`);
    }
    if (credential?.kind === "header") headers.set(credential.name, credential.value);
    if (credential?.kind === "query") url.searchParams.set(credential.name, credential.value);
    // every request within the time bound (the session's DELETE at the end too)
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    const res = await base(url, { ...init, headers, signal, redirect: "manual" });
    if (!res.body) return res;
    let seen = 0;
    const limit = options.maxResponseBytes;
    const body = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > limit) {
            state.tooLarge = true;
            controller.error(new TooLarge(limit));
            return;
          }
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}

/** A connected client; `end` ends this exchange's use of it. */
interface Connected {
  client: Client;
  state: { tooLarge: boolean };
  end(): Promise<void>;
}

/** Resolves as `promise` does, or rejects with the signal's reason once it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}

/**
 * The one connection to a stdio server: its process started on first use (start-up's listing),
 * shared by concurrent calls, started again by the next call after it ended (exit, crash, a line
 * over the bound), stopped by {@linkcode StdioUpstream.stop}.
 */
class StdioUpstream {
  #current?: Promise<Connected>;
  #stopped = false;

  constructor(readonly spec: UpstreamSpec, readonly options: UpstreamOptions) {}

  /** The connection, opened within `--mcp-timeout` when there is none; waits at most `signal`. */
  connection(signal: AbortSignal): Promise<Connected> {
    if (this.#stopped) return Promise.reject(new Error("the MCP server was stopped"));
    if (!this.#current) {
      // forgotten once it fails or its connection closes: the next call opens another
      const forget = () => {
        if (this.#current === opening) this.#current = undefined;
      };
      const opening = this.#open(forget);
      this.#current = opening;
      opening.catch(forget);
    }
    return untilAborted(this.#current, signal);
  }

  async #open(forget: () => void): Promise<Connected> {
    const state = { tooLarge: false };
    const name = this.spec.name;
    const transport = new ChildProcessTransport(
      this.spec.command!,
      this.options.maxResponseBytes,
      (line) => this.options.log?.(name, line),
      state,
    );
    const client = new Client({ name: IDENTITY.name, version: IDENTITY.build.version });
    client.onclose = forget;
    try {
      await client.connect(transport, {
        signal: AbortSignal.timeout(this.options.timeoutMs),
        timeout: this.options.timeoutMs,
      });
    } catch (err) {
      await transport.close().catch(() => {});
      throw err;
    }
    return { client, state, end: () => Promise.resolve() };
  }

  /** Stops the process (stdin closed, SIGTERM, SIGKILL after 2 s); no call starts it again. */
  async stop(): Promise<void> {
    this.#stopped = true;
    const current = await this.#current?.catch(() => undefined);
    await current?.client.close().catch(() => {});
  }
}

/** Opens this exchange's connection: its own over HTTP, the shared one of a stdio server. */
type Connector = (signal: AbortSignal) => Promise<Connected>;

/** A connected client for one exchange with an upstream. */
async function connect(
  spec: UpstreamSpec,
  options: UpstreamOptions,
  credential: Credential | undefined,
  signal: AbortSignal,
): Promise<Connected> {
  const state = { tooLarge: false };
  const client = new Client({ name: IDENTITY.name, version: IDENTITY.build.version });
  const transport = new StreamableHTTPClientTransport(new URL(spec.url), {
    fetch: boundedFetch(options, credential, state),
  });
  // Ends the session the upstream opened for this connection (DELETE with its id: a stateful
  // server keeps one per initialize otherwise), then the connection. Never rejects.
  const end = async () => {
    await transport.terminateSession().catch(() => {});
    await client.close().catch(() => {});
  };
  try {
    await client.connect(transport, { signal, timeout: options.timeoutMs });
  } catch (err) {
    await end();
    throw err;
  }
  return { client, state, end };
}

/** The text of a failure, for `capability failed: <text>`. */
function failureText(
  err: unknown,
  state: { tooLarge: boolean },
  options: UpstreamOptions,
): string {
  if (state.tooLarge || err instanceof TooLarge || err instanceof LineTooLong) {
    return `response larger than ${options.maxResponseBytes} bytes`;
  }
  const timeoutMs = options.timeoutMs;
  const name = (err as Error)?.name;
  const message = String((err as Error)?.message ?? "");
  if (name === "TimeoutError" || /timed out|timeout/i.test(message)) {
    return `no answer within ${timeoutMs} ms`;
  }
  return `cannot reach the MCP server (${name ?? "Error"})`;
}

/** The text items of a result, joined by newlines. */
function textOf(result: CallToolResult): string {
  const items = result.content as Array<{ type: string; text?: string }>;
  return items.filter((item) => item.type === "text").map((item) => item.text ?? "").join("\n");
}

/** The output fields of a tool without `outputSchema`. */
const TEXT_OUTPUT: Field[] = [t.field("text", t.str())];

interface MappedTool {
  local: string;
  input: Field[];
  /** Root field name → the tool's argument name. */
  wire: Map<string, string>;
  output: Field[];
  structured: boolean;
  notes: string[];
}

/** A tool's schemas in the notation. @throws {Unexpressible} */
function mapTool(tool: Tool): Omit<MappedTool, "local"> {
  const input: Field[] = [];
  const wire = new Map<string, string>();
  const inMapper = schemaMapper(tool.inputSchema);
  const root = inMapper.resolve(tool.inputSchema, "input");
  const required = new Set(Array.isArray(root.required) ? root.required as string[] : []);
  const taken = new Set<string>();
  for (const [name, schema] of Object.entries((root.properties ?? {}) as Record<string, unknown>)) {
    let type;
    try {
      type = inMapper.convert(schema, "input", `input.${name}`);
    } catch (err) {
      if (err instanceof Unexpressible && !required.has(name)) {
        inMapper.notes.push(`${name} not exposed (${err.message.replace(/^[^:]*: /, "")})`);
        continue;
      }
      throw err;
    }
    let local = identifierFor(name);
    for (let i = 2; taken.has(local); i++) local = `${identifierFor(name)}_${i}`;
    taken.add(local);
    wire.set(local, name);
    input.push(fieldOf(local, type, required.has(name), "input"));
  }
  if (!tool.outputSchema) {
    return { input, wire, output: TEXT_OUTPUT, structured: false, notes: inMapper.notes };
  }
  const outMapper = schemaMapper(tool.outputSchema);
  const outRoot = outMapper.resolve(tool.outputSchema, "output");
  const outRequired = new Set(Array.isArray(outRoot.required) ? outRoot.required as string[] : []);
  const output: Field[] = [];
  for (
    const [name, schema] of Object.entries((outRoot.properties ?? {}) as Record<string, unknown>)
  ) {
    try {
      output.push(
        fieldOf(
          name,
          outMapper.convert(schema, "output", `output.${name}`),
          outRequired.has(name),
          "output",
        ),
      );
    } catch (err) {
      if (!(err instanceof Unexpressible)) throw err;
      outMapper.notes.push(`output ${name} left out (${err.message.replace(/^[^:]*: /, "")})`);
    }
  }
  return { input, wire, output, structured: true, notes: [...inMapper.notes, ...outMapper.notes] };
}

/** Lists an upstream's tools, at most `maxTools` (+1 to tell that there were more). */
async function listTools(
  client: Client,
  options: UpstreamOptions,
  signal: AbortSignal,
): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {}, {
      signal,
      timeout: options.timeoutMs,
    });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor && tools.length <= options.maxTools);
  return tools;
}

/** Connects to every upstream and registers its tools. @throws {ApiError} (one line) */
export async function registerUpstreams(
  registry: CapabilityRegistry,
  specs: readonly UpstreamSpec[],
  options: UpstreamOptions,
): Promise<ApiReport[]> {
  const reports: ApiReport[] = [];
  for (const spec of specs) reports.push(await registerUpstream(registry, spec, options));
  return reports;
}

async function registerUpstream(
  registry: CapabilityRegistry,
  spec: UpstreamSpec,
  options: UpstreamOptions,
): Promise<ApiReport> {
  let credential: Credential | undefined;
  try {
    credential = spec.auth ? credentialOf(spec.name, spec.auth, options.env) : undefined;
  } catch (err) {
    throw new ApiError(
      (err as Error).message.replace("--openapi-auth", "--mcp-auth").replace(
        "(MCP_OPENAPI_AUTH)",
        "(MCP_MCP_AUTH)",
      ),
    );
  }
  let connector: Connector;
  if (spec.command) {
    const why = runGrantProblem(spec.command[0]);
    if (why) throw new ApiError(`Cannot use MCP server "${spec.name}": ${why} (--mcp / MCP_MCP)`);
    const stdio = new StdioUpstream(spec, options);
    options.stops?.push(() => stdio.stop());
    connector = (signal) => stdio.connection(signal);
  } else {
    connector = (signal) => connect(spec, options, credential, signal);
  }
  const signal = AbortSignal.timeout(options.timeoutMs);
  let tools: Tool[];
  let state = { tooLarge: false };
  try {
    const connected = await connector(signal);
    state = connected.state;
    try {
      tools = await listTools(connected.client, options, signal);
    } finally {
      await connected.end();
    }
  } catch (err) {
    throw new ApiError(
      `Cannot use MCP server "${spec.name}": cannot list its tools at ${spec.url}: ${
        failureText(err, state, options)
      } (--mcp / MCP_MCP)`,
    );
  }
  const report: ApiReport = { name: spec.name, enabled: [], disabled: [] };
  const used = new Set<string>();
  for (const [index, tool] of tools.entries()) {
    let local = snakeCase(tool.name);
    for (let i = 2; used.has(local); i++) local = `${snakeCase(tool.name)}_${i}`;
    used.add(local);
    const name = `${spec.name}.${local}`;
    const disable = (reason: string, kind: DisabledKind) =>
      report.disabled.push({ name, reason, kind });
    if (index >= options.maxTools) {
      disable(`beyond --mcp-max-tools (${options.maxTools})`, "rejected");
      continue;
    }
    let mapped;
    try {
      mapped = mapTool(tool);
    } catch (err) {
      if (err instanceof Unexpressible) {
        disable(err.message, "unexpressible");
        continue;
      }
      throw err;
    }
    const description = [
      tool.description ?? "",
      mapped.structured ? "" : "Output: the text items of the tool's answer, joined by newlines.",
      ...mapped.notes,
      `MCP: tool ${tool.name} of ${spec.url}`,
    ].filter((line) => line !== "").join("\n\n");
    const summary = (tool.title ?? tool.annotations?.title ?? tool.description ?? tool.name)
      .split("\n")[0].slice(0, 200);
    try {
      registry.register({
        name,
        summary,
        description,
        searchTerms: [tool.name, spec.name],
        input: mapped.input,
        output: mapped.output,
        readOnly: tool.annotations?.readOnlyHint === true,
        openWorld: true,
        handler: toolHandler(connector, tool.name, mapped, options),
      });
      report.enabled.push(name);
    } catch (err) {
      disable(
        (err as Error).message.replace(/^Cannot register capability "[^"]*": /, ""),
        "rejected",
      );
    }
  }
  return report;
}

function toolHandler(
  connector: Connector,
  tool: string,
  mapped: Omit<MappedTool, "local">,
  options: UpstreamOptions,
) {
  return async (args: Record<string, unknown>, context: { signal: AbortSignal }) => {
    const wireArgs: Record<string, unknown> = {};
    for (const [local, value] of Object.entries(args)) {
      wireArgs[mapped.wire.get(local) ?? local] = value;
    }
    const signal = AbortSignal.any([context.signal, AbortSignal.timeout(options.timeoutMs)]);
    let state = { tooLarge: false };
    let result: CallToolResult;
    let end = () => Promise.resolve();
    try {
      const connected = await connector(signal);
      end = connected.end;
      state = connected.state;
      result = await connected.client.callTool({ name: tool, arguments: wireArgs }, undefined, {
        signal,
        timeout: options.timeoutMs,
      }) as CallToolResult;
    } catch (err) {
      if (context.signal.aborted) throw err;
      throw new AgentError(failureText(err, state, options));
    } finally {
      void end(); // in the background: the answer does not wait for the session's end
    }
    if (result.isError) throw new AgentError(textOf(result) || "the tool failed");
    if (mapped.structured) return result.structuredContent ?? {};
    return { text: textOf(result) };
  };
}
