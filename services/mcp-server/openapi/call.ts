/**
 * Calling an operation: path templating, query serialization (form with and without explode,
 * space/pipe-delimited, deepObject), header parameters, a JSON body, the API's credentials; a
 * bounded time and response size; non-2xx answers become `capability failed: <status> <text>`;
 * a response that does not match its declared schema is a bare `capability failed`. A path value
 * that would make an empty, `.` or `..` segment is an invalid argument: it would reach another
 * route. Every request goes through {@linkcode readWithin}, bounded to the base URL's origin and
 * path.
 * @module
 */
import { encodeBase64 } from "@svc/shared/base64";
import { AgentError } from "../tools/agent_error.ts";
import { BindError } from "../capabilities/bind.ts";
import type { CapabilityHandler } from "../capabilities/registry.ts";
import type { OperationPlan } from "./operation.ts";
import { originBound, ReadFailed, readWithin } from "./read_within.ts";

/** A credential of one API, its secret taken from the environment at start-up. */
export type Credential =
  | { kind: "bearer"; token: string }
  | { kind: "basic"; userPass: string }
  | { kind: "header"; name: string; value: string }
  | { kind: "query"; name: string; value: string };

/** What every call of one API shares. */
export interface ApiCallOptions {
  /** Base URL the operation paths append to. */
  baseUrl: URL;
  credential?: Credential;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Time for one call, ms. */
  timeoutMs: number;
  /** Largest response body read, bytes. */
  maxResponseBytes: number;
  /** Validates a parsed 2xx body against the declared schema; false: `capability failed`. */
  validate?: (value: unknown) => boolean;
}

/** The handler of one operation. */
export function operationHandler(plan: OperationPlan, api: ApiCallOptions): CapabilityHandler {
  const bound = originBound(api.baseUrl, api.baseUrl.pathname);
  return async (args, { signal }) => {
    const url = buildUrl(plan, api.baseUrl, args);
    const headers = new Headers({ accept: "application/json" });
    for (const input of plan.inputs) {
      if (input.in !== "header" || args[input.name] === undefined) continue;
      headers.set(input.wire, scalarList(args[input.name], ","));
    }
    let body: string | undefined;
    if (plan.hasBody) {
      const whole = plan.inputs.find((input) => input.in === "body_whole");
      let value: unknown;
      if (whole) value = args[whole.name];
      else {
        const obj: Record<string, unknown> = {};
        for (const input of plan.inputs) {
          if (input.in === "body" && args[input.name] !== undefined) {
            obj[input.wire] = args[input.name];
          }
        }
        value = Object.keys(obj).length > 0 || plan.bodyRequired ? obj : undefined;
      }
      if (value !== undefined) {
        body = stringifyJson(value);
        headers.set("content-type", "application/json");
      }
    }
    applyCredential(api.credential, headers, url);
    let res;
    try {
      res = await readWithin(url, bound, {
        maxBytes: api.maxResponseBytes,
        timeoutMs: api.timeoutMs,
        signal,
        fetch: api.fetch,
        request: { method: plan.method, headers, body },
      });
    } catch (err) {
      if (!(err instanceof ReadFailed)) throw err; // refused or aborted: bare, logged
      if (err.code === "timeout") throw new AgentError(`no answer within ${api.timeoutMs} ms`);
      throw new AgentError(`cannot reach the API (${(err.cause as Error)?.name ?? "Error"})`);
    }
    const bytes = res.bytes;
    if (res.status < 200 || res.status > 299) {
      throw new AgentError(failureText(res.status, res.statusText, res.headers, bytes));
    }
    if (bytes === undefined) {
      throw new AgentError(`response larger than ${api.maxResponseBytes} bytes`);
    }
    if (plan.responseSchema === undefined || bytes.length === 0) return {};
    const text = new TextDecoder().decode(bytes);
    let value: unknown;
    try {
      value = parseJson(text);
    } catch {
      throw new Error("response is not JSON"); // bare `capability failed`
    }
    if (api.validate && !api.validate(JSON.parse(text))) {
      throw new Error("response does not match its schema"); // bare `capability failed`
    }
    return plan.wrapped ? { body: value } : value;
  };
}

/** The request URL: base, templated path, query parameters. */
function buildUrl(plan: OperationPlan, baseUrl: URL, args: Record<string, unknown>): URL {
  const url = new URL(baseUrl.href.replace(/\/?$/, "") + templatePath(plan, args));
  const parts: string[] = [];
  const enc = (text: string) => encodeURIComponent(text);
  for (const input of plan.inputs) {
    if (input.in !== "query") continue;
    const value = args[input.name];
    if (value === undefined || value === null) continue;
    const name = input.wire;
    if (Array.isArray(value)) {
      const items = value.map((item) => scalar(item));
      if (input.style === "form" && input.explode !== false) {
        for (const item of items) parts.push(`${enc(name)}=${enc(item)}`);
      } else {
        const sep = input.style === "spaceDelimited"
          ? "%20"
          : input.style === "pipeDelimited"
          ? "|"
          : ",";
        parts.push(`${enc(name)}=${items.map(enc).join(sep)}`);
      }
    } else if (typeof value === "object") {
      const entries = Object.entries(value as Record<string, unknown>).filter(([, entry]) =>
        entry !== null && entry !== undefined
      );
      if (input.style === "deepObject") {
        for (const [key, entry] of entries) {
          parts.push(`${enc(`${name}[${key}]`)}=${enc(scalar(entry))}`);
        }
      } else if (input.explode !== false) {
        for (const [key, entry] of entries) parts.push(`${enc(key)}=${enc(scalar(entry))}`);
      } else {
        const pairs = entries.map(([key, entry]) => `${enc(key)},${enc(scalar(entry))}`);
        parts.push(`${enc(name)}=${pairs.join(",")}`);
      }
    } else {
      parts.push(`${enc(name)}=${enc(scalar(value))}`);
    }
  }
  if (parts.length > 0) {
    url.search = (url.search ? `${url.search.slice(1)}&` : "") + parts.join("&");
  }
  return url;
}

/**
 * The path with its parameters percent-encoded (simple style; list items joined by `,`). A
 * parameter's segment that comes out empty, `.` or `..` is refused: URL normalization would drop
 * it or step up (`%2E%2E` too, WHATWG URLs decode it as `..`), so the request would reach another
 * route. @throws {BindError} naming the segment's first parameter
 */
function templatePath(plan: OperationPlan, args: Record<string, unknown>): string {
  const values = new Map<string, { name: string; text: string }>();
  for (const input of plan.inputs) {
    if (input.in !== "path") continue;
    const value = args[input.name];
    const text = Array.isArray(value)
      ? value.map((item) => encodeURIComponent(scalar(item))).join(",")
      : encodeURIComponent(scalar(value));
    values.set(input.wire, { name: input.name, text });
  }
  return plan.path.split("/").map((segment) => {
    let first: string | undefined;
    const out = segment.replace(/\{([^}]*)\}/g, (whole, wire: string) => {
      const value = values.get(wire);
      if (!value) return whole;
      first ??= value.name;
      return value.text;
    });
    if (first !== undefined && (out === "" || out === "." || out === "..")) {
      throw new BindError(`${first}: a path segment cannot be empty, "." or ".."`);
    }
    return out;
  }).join("/");
}

function scalar(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") {
    return String(value);
  }
  if (value instanceof Float64Array) return String(value[0]);
  return stringifyJson(value);
}

function scalarList(value: unknown, sep: string): string {
  return Array.isArray(value) ? value.map(scalar).join(sep) : scalar(value);
}

function applyCredential(cred: Credential | undefined, headers: Headers, url: URL): void {
  if (!cred) return;
  switch (cred.kind) {
    case "bearer":
      headers.set("authorization", `Bearer ${cred.token}`);
      break;
    case "basic":
      headers.set(
        "authorization",
        `Basic ${encodeBase64(new TextEncoder().encode(cred.userPass))}`,
      );
      break;
    case "header":
      headers.set(cred.name, cred.value);
      break;
    case "query":
      url.searchParams.set(cred.name, cred.value);
      break;
  }
}

/** `<status> <title>: <detail>` of a problem body, else a short text of the body or status. */
function failureText(
  code: number,
  statusText: string,
  headers: Headers,
  bytes: Uint8Array | undefined,
): string {
  const status = `${code}`;
  const text = bytes ? new TextDecoder().decode(bytes.subarray(0, 4096)) : "";
  const type = headers.get("content-type") ?? "";
  if (/json/i.test(type)) {
    try {
      const data = JSON.parse(text);
      const title = typeof data?.title === "string" ? data.title : undefined;
      const detail = typeof data?.detail === "string"
        ? data.detail
        : typeof data?.message === "string"
        ? data.message
        : typeof data?.error_description === "string"
        ? data.error_description
        : typeof data?.error === "string"
        ? data.error
        : undefined;
      const parts = [title, detail].filter((part) => part !== undefined && part !== "");
      if (parts.length > 0) return `${status} ${parts.join(": ")}`;
    } catch {
      // fall through to the short text
    }
  }
  if (/^text\/plain/i.test(type) && text.trim() !== "") {
    return `${status} ${text.trim().split("\n")[0].slice(0, 200)}`;
  }
  return `${status} ${statusText || "error"}`.trim();
}

/** JSON with bigints written as integers. */
export function stringifyJson(value: unknown): string {
  const marks = new Map<string, string>();
  const text = JSON.stringify(value, (_key, item) => {
    if (typeof item === "bigint") {
      const mark = `\u0000big${marks.size}\u0000`;
      marks.set(mark, item.toString());
      return mark;
    }
    if (item instanceof Float64Array && item.length === 1) return item[0];
    return item;
  });
  if (marks.size === 0) return text;
  return text.replace(/"\\u0000big\d+\\u0000"/g, (mark) => marks.get(JSON.parse(mark)) ?? mark);
}

/** JSON.parse keeping integers beyond ±2^53 exact as bigints (int64 fields). */
export function parseJson(text: string): unknown {
  return JSON.parse(text, function (_key, value, context?: { source?: string }) {
    if (
      typeof value === "number" && !Number.isSafeInteger(value) && context?.source &&
      /^-?\d+$/.test(context.source)
    ) {
      return BigInt(context.source);
    }
    return value;
  });
}
