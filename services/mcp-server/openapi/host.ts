/**
 * The OpenAPI host: every operation of every `--openapi NAME=URL|FILE` document becomes the
 * capability `NAME.<operation>`; an operation the notation cannot express registers disabled with
 * its reason. Credentials come from `MCP_*` environment variables named by `--openapi-auth`, never
 * from the document.
 * @module
 */
import type { Ajv } from "ajv";
import { ajvClasses } from "./ajv_classes.ts";
import type { CapabilityRegistry } from "../capabilities/registry.ts";
import { capabilityNameProblem } from "../capabilities/names.ts";
import { type Credential, operationHandler } from "./call.ts";
import { DocumentError, loadDocument, type LoadedDocument } from "./document.ts";
import { mapOperation, METHODS } from "./operation.ts";

/** One API as the settings describe it. */
export interface ApiSpec {
  name: string;
  /** URL or file path of the document. */
  source: string;
  /** Overrides the document's first server URL. */
  baseUrl?: string;
  /** How to authenticate, e.g. `bearer:MCP_GITHUB_TOKEN`. */
  auth?: string;
}

/** A start-up problem with one API; `message` is one line naming the API and the reason. */
export class ApiError extends Error {
  /** Stable code: start-up stops. */
  readonly code = "api_unusable";
  constructor(message: string) {
    super(message);
    this.name = "ApiError";
  }
}

/**
 * Why an operation is disabled: `unexpressible` when the notation cannot express its shape (a
 * non-JSON response or body, `oneOf` without a discriminator, …: expected, documented, never a
 * start-up failure), `rejected` when the registry refused the capability (its name or definition
 * is unusable: a conflict in the document or the settings).
 */
export type DisabledKind = "unexpressible" | "rejected";

/** Outcome of registering one API. */
export interface ApiReport {
  name: string;
  enabled: string[];
  disabled: Array<{ name: string; reason: string; kind: DisabledKind }>;
}

/** Options of {@linkcode registerOpenApis}. */
export interface OpenApiHostOptions {
  /** Environment lookup (credentials). */
  env: (name: string) => string | undefined;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Time for one call, ms. @default 10000 */
  timeoutMs?: number;
  /** Largest response body, bytes. @default 4194304 */
  maxResponseBytes?: number;
  /** How long to retry a document URL that cannot be reached yet, ms. @default 0 */
  waitMs?: number;
}

/** Parses the repeatable `NAME=VALUE` settings into API specs. @throws {ApiError} */
export function apiSpecs(
  openapi: readonly string[],
  baseUrls: readonly string[] = [],
  auths: readonly string[] = [],
): ApiSpec[] {
  const specs = new Map<string, ApiSpec>();
  for (const entry of openapi) {
    const [name, source] = splitPair(entry, "--openapi / MCP_OPENAPI", "NAME=URL|FILE");
    const problem = capabilityNameProblem(`${name}.x`);
    if (problem) {
      throw new ApiError(
        `Cannot load OpenAPI API "${name}": the name ${
          problem.replace(/^segment "[^"]*" /, "")
        } (--openapi / MCP_OPENAPI)`,
      );
    }
    if (specs.has(name)) {
      throw new ApiError(
        `Cannot load OpenAPI API "${name}": given twice (--openapi / MCP_OPENAPI)`,
      );
    }
    specs.set(name, { name, source });
  }
  for (const entry of baseUrls) {
    const [name, url] = splitPair(entry, "--openapi-base-url / MCP_OPENAPI_BASE_URL", "NAME=URL");
    const spec = specs.get(name);
    if (!spec) {
      throw new ApiError(
        `Cannot use --openapi-base-url for "${name}": no --openapi ${name}=... (MCP_OPENAPI_BASE_URL)`,
      );
    }
    if (!/^https?:\/\/[^/]/i.test(url) || !URL.canParse(url)) {
      throw new ApiError(
        `Cannot use --openapi-base-url for "${name}": not an http(s) URL (MCP_OPENAPI_BASE_URL)`,
      );
    }
    spec.baseUrl = url;
  }
  for (const entry of auths) {
    const [name, auth] = splitPair(entry, "--openapi-auth / MCP_OPENAPI_AUTH", "NAME=KIND:...");
    const spec = specs.get(name);
    if (!spec) {
      throw new ApiError(
        `Cannot use --openapi-auth for "${name}": no --openapi ${name}=... (MCP_OPENAPI_AUTH)`,
      );
    }
    spec.auth = auth;
  }
  return [...specs.values()];
}

function splitPair(entry: string, setting: string, shape: string): [string, string] {
  const equals = entry.indexOf("=");
  if (equals <= 0 || equals === entry.length - 1) {
    throw new ApiError(`Cannot read ${setting}: want ${shape}, got "${entry.slice(0, 80)}"`);
  }
  return [entry.slice(0, equals), entry.slice(equals + 1)];
}

const ENV_NAME = /^MCP_[A-Z0-9_]+$/;

/**
 * Resolves an auth setting against the environment: `bearer:MCP_X`, `basic:MCP_X` (the variable
 * holds `user:password`), `header:<Header-Name>:MCP_X`, `query:<param>:MCP_X`. Only `MCP_*`
 * variables: the deployed permission grants no other. @throws {ApiError}
 */
export function credentialOf(
  api: string,
  auth: string,
  env: (name: string) => string | undefined,
): Credential {
  const fail = (why: string) =>
    new ApiError(`Cannot use --openapi-auth for "${api}": ${why} (MCP_OPENAPI_AUTH)`);
  const parts = auth.split(":");
  const kind = parts[0];
  const want = kind === "bearer" || kind === "basic"
    ? 2
    : kind === "header" || kind === "query"
    ? 3
    : 0;
  if (want === 0) throw fail("want bearer:VAR, basic:VAR, header:NAME:VAR or query:NAME:VAR");
  if (parts.length !== want) throw fail(`want ${kind}${want === 3 ? ":NAME" : ""}:VAR`);
  const variable = parts[want - 1];
  if (!ENV_NAME.test(variable)) {
    throw fail(`the variable must be named MCP_<NAME> (got "${variable.slice(0, 64)}")`);
  }
  const value = env(variable);
  if (value === undefined || value === "") throw fail(`${variable} is not set`);
  switch (kind) {
    case "bearer":
      return { kind, token: value };
    case "basic":
      if (!value.includes(":")) throw fail(`${variable} must hold user:password`);
      return { kind, userPass: value };
    default: {
      const name = parts[1];
      if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) throw fail(`invalid ${kind} name`);
      return kind === "header" ? { kind, name, value } : { kind: "query", name, value };
    }
  }
}

/**
 * The base URL of an API: the override, else the first server URL (relative to the document). A
 * document from a URL names a server on its own origin only: the API's credential goes there, and
 * the operator named that origin, not the one the document's author chose.
 */
function baseUrlOf(spec: ApiSpec, loaded: LoadedDocument): URL {
  if (spec.baseUrl) return new URL(spec.baseUrl);
  const servers = Array.isArray(loaded.doc.servers) ? loaded.doc.servers : [];
  const first = servers[0] as { url?: unknown; variables?: Record<string, { default?: unknown }> };
  let raw = typeof first?.url === "string" ? first.url : "/";
  for (const [name, variable] of Object.entries(first?.variables ?? {})) {
    raw = raw.replaceAll(`{${name}}`, String(variable?.default ?? ""));
  }
  const url = URL.canParse(raw, loaded.location) ? new URL(raw, loaded.location) : undefined;
  if (!url || !/^https?:$/.test(url.protocol)) {
    throw new ApiError(
      `Cannot load OpenAPI API "${spec.name}": the document names no http(s) server URL; set ` +
        `--openapi-base-url ${spec.name}=URL (MCP_OPENAPI_BASE_URL)`,
    );
  }
  const from = loaded.location;
  if (from.protocol !== "file:" && url.origin !== from.origin) {
    throw new ApiError(
      `Cannot load OpenAPI API "${spec.name}": the document's server ${url.origin} is not its ` +
        `own origin (${from.origin}); set --openapi-base-url ${spec.name}=URL to call it ` +
        "(MCP_OPENAPI_BASE_URL)",
    );
  }
  return url;
}

/** Loads every API and registers its operations. @throws {ApiError} (one line) */
export async function registerOpenApis(
  registry: CapabilityRegistry,
  specs: readonly ApiSpec[],
  options: OpenApiHostOptions,
): Promise<ApiReport[]> {
  const reports: ApiReport[] = [];
  for (const spec of specs) {
    let loaded: LoadedDocument;
    try {
      loaded = await loadDocument(spec.source, { fetch: options.fetch, waitMs: options.waitMs });
    } catch (err) {
      if (!(err instanceof DocumentError)) throw err;
      throw new ApiError(
        `Cannot load OpenAPI API "${spec.name}": ${err.message} (--openapi / MCP_OPENAPI)`,
      );
    }
    reports.push(registerDocument(registry, spec, loaded, options));
  }
  return reports;
}

/** Registers the operations of one loaded document. @throws {ApiError} */
export function registerDocument(
  registry: CapabilityRegistry,
  spec: ApiSpec,
  loaded: LoadedDocument,
  options: OpenApiHostOptions,
): ApiReport {
  const credential = spec.auth ? credentialOf(spec.name, spec.auth, options.env) : undefined;
  const baseUrl = baseUrlOf(spec, loaded);
  const skipHeaders = new Set(credential?.kind === "header" ? [credential.name.toLowerCase()] : []);
  const report: ApiReport = { name: spec.name, enabled: [], disabled: [] };
  const validators = lazyValidators(loaded.doc);
  const used = new Set<string>();
  const paths = loaded.doc.paths as Record<string, Record<string, unknown>>;
  for (const [path, rawItem] of Object.entries(paths)) {
    let item = rawItem;
    if (typeof item?.$ref === "string") {
      // a path item may itself be a reference
      const target = item.$ref.startsWith("#/")
        ? item.$ref.slice(2).split("/").reduce<unknown>(
          (node, token) =>
            (node as Record<string, unknown>)?.[token.replaceAll("~1", "/").replaceAll("~0", "~")],
          loaded.doc,
        )
        : undefined;
      if (typeof target === "object" && target !== null) item = target as Record<string, unknown>;
    }
    if (typeof item !== "object" || item === null) continue;
    for (const method of METHODS) {
      if (typeof item[method] !== "object" || item[method] === null) continue;
      const mapped = mapOperation(loaded.doc, method, path, item, skipHeaders);
      let local = mapped.local;
      for (let i = 2; used.has(local); i++) local = `${mapped.local}_${i}`;
      used.add(local);
      const name = `${spec.name}.${local}`;
      const validate = mapped.plan.responsePointer
        ? validators(mapped.plan.responsePointer)
        : undefined;
      const handler = operationHandler(mapped.plan, {
        baseUrl,
        credential,
        fetch: options.fetch,
        timeoutMs: options.timeoutMs ?? 10_000,
        maxResponseBytes: options.maxResponseBytes ?? 4 * 1024 * 1024,
        validate,
      });
      let reason = mapped.disabled;
      let kind: DisabledKind = "unexpressible";
      if (!reason) {
        try {
          registry.register({
            name,
            summary: mapped.summary,
            description: mapped.description,
            searchTerms: mapped.searchTerms,
            input: mapped.input,
            output: mapped.output,
            readOnly: mapped.plan.method === "GET" || mapped.plan.method === "HEAD",
            openWorld: true,
            handler,
          });
          report.enabled.push(name);
          continue;
        } catch (err) {
          reason = (err as Error).message.replace(/^Cannot register capability "[^"]*": /, "");
          kind = "rejected";
        }
      }
      try {
        registry.register({ name, summary: mapped.summary, enabled: false, handler });
      } catch {
        // the name itself is unusable (e.g. taken): it is only reported
      }
      report.disabled.push({ name, reason, kind });
    }
  }
  return report;
}

/**
 * Response validators compiled on first use (compiling a thousand at start-up would cost
 * seconds): the document is added once, each response schema referenced by its JSON pointer.
 * A schema ajv cannot compile is not validated (the projection still checks every value).
 */
function lazyValidators(doc: Record<string, unknown>) {
  let ajv: Ajv | undefined;
  const is31 = String(doc.openapi).startsWith("3.1");
  return (pointer: string) => {
    let compiled: ((value: unknown) => boolean) | null | undefined;
    return (value: unknown): boolean => {
      if (compiled === undefined) {
        try {
          if (!ajv) {
            const { Ajv, Ajv2020 } = ajvClasses();
            const opts = { strict: false, validateFormats: false, allErrors: false } as const;
            ajv = is31 ? new Ajv2020(opts) : new Ajv(opts);
            ajv.addSchema(doc as object, "doc");
          }
          compiled = ajv.compile({ $ref: `doc${pointer}` }) as (value: unknown) => boolean;
        } catch {
          compiled = null;
        }
      }
      return compiled === null ? true : compiled(value);
    };
  };
}
