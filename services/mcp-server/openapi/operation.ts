/**
 * One OpenAPI operation to one capability (docs/mcp-server.md#openapi-apis): its name
 * (`API.<operationId in snake_case>`, or method and path), its root input fields (path, query and
 * header parameters, then the JSON body's fields), its output (the 2xx JSON response), summary,
 * description and search terms, and the plan a call follows. A shape the notation cannot express
 * yields a reason instead.
 * @module
 */
import type { Field } from "../capabilities/schema.ts";
import { t } from "../capabilities/schema.ts";
import { isKeywordArgName, STARLARK_KEYWORDS } from "../capabilities/names.ts";
import { deref } from "./document.ts";
import { fieldOf, schemaMapper, Unexpressible } from "./schema_map.ts";

/** HTTP methods an OpenAPI path item may hold, in document order of the spec. */
export const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** Where a root input goes in the request. */
export interface InputPlan {
  /** The root input name (a Starlark identifier). */
  name: string;
  /** `path`, `query`, `header`, `body` (one field of an object body) or `body_whole`. */
  in: "path" | "query" | "header" | "body" | "body_whole";
  /** The parameter or body-property name in the document. */
  wire: string;
  /** Query serialization. */
  style?: string;
  explode?: boolean;
}

/** What a call does. */
export interface OperationPlan {
  method: string;
  /** The path template, e.g. `/v1/todos/{id}`. */
  path: string;
  inputs: InputPlan[];
  /** Whether a JSON body is sent (even an empty one when the body is required). */
  hasBody: boolean;
  bodyRequired: boolean;
  /** The 2xx JSON response schema (for validation), and whether it is wrapped as `body`. */
  responseSchema?: unknown;
  wrapped: boolean;
  /** JSON pointer of the response schema in the document (for ajv). */
  responsePointer?: string;
}

/** A mapped operation: a capability definition without its handler, or why it is disabled. */
export interface MappedOperation {
  /** The local part of the name (after `API.`). */
  local: string;
  summary: string;
  description: string;
  searchTerms: string[];
  input: Field[];
  output: Field[];
  plan: OperationPlan;
  /** Set when the operation cannot be expressed; the capability registers disabled. */
  disabled?: string;
}

/** Headers OpenAPI says a parameter definition of this name is ignored for. */
const IGNORED_HEADERS = new Set(["accept", "content-type", "authorization"]);

/**
 * snake_case of an operation id: camel-case and acronym boundaries become `_`, every run of other
 * characters becomes `_`, lower-cased; a leading digit gets `op_`, a keyword a trailing `_`.
 */
export function snakeCase(text: string): string {
  const snake = text
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .toLowerCase();
  if (snake === "") return "op";
  const lead = /^[0-9]/.test(snake) ? `op_${snake}` : snake;
  return STARLARK_KEYWORDS.has(lead) ? `${lead}_` : lead;
}

/** The local name of an operation: its operationId in snake_case, else `<method>_<path>`. */
function operationLocalName(method: string, path: string, operationId: unknown): string {
  if (typeof operationId === "string" && operationId.trim() !== "") return snakeCase(operationId);
  return snakeCase(`${method} ${path}`);
}

/** A root input name for a wire name: kept when usable, else snake_case. */
export function identifierFor(wire: string): string {
  return isKeywordArgName(wire) ? wire : snakeCase(wire);
}

/**
 * Maps one operation. `skipHeaders` are header names (lower-case) the API's credentials set,
 * which are never inputs.
 */
export function mapOperation(
  doc: Record<string, unknown>,
  method: string,
  path: string,
  pathItem: Record<string, unknown>,
  skipHeaders: ReadonlySet<string> = new Set(),
): MappedOperation {
  const op = pathItem[method] as Record<string, unknown>;
  const local = operationLocalName(method, path, op.operationId);
  const tags = Array.isArray(op.tags) ? op.tags.map(String) : [];
  const description = typeof op.description === "string" ? op.description.trim() : "";
  const summary = typeof op.summary === "string" && op.summary.trim() !== ""
    ? op.summary.trim()
    : firstSentence(description) || `${method.toUpperCase()} ${path}`;
  const pathWords = path.split("/").filter((segment) => segment !== "" && !segment.startsWith("{"));
  const searchTerms = [
    ...tags,
    ...(typeof op.operationId === "string" ? [op.operationId] : []),
    method,
    ...pathWords,
  ];
  const plan: OperationPlan = {
    method: method.toUpperCase(),
    path,
    inputs: [],
    hasBody: false,
    bodyRequired: false,
    wrapped: false,
  };
  const base = { local, summary, searchTerms, plan };
  const mapper = schemaMapper(doc);
  try {
    const input = mapInputs(doc, op, pathItem, plan, mapper, skipHeaders);
    const output = mapOutput(doc, op, plan, mapper, method, path);
    const notes = mapper.notes.length > 0 ? `\n\nNotes: ${mapper.notes.join("; ")}.` : "";
    return {
      ...base,
      description: `${description}${notes}\n\nHTTP: ${plan.method} ${path}`.trim(),
      input,
      output,
    };
  } catch (err) {
    if (!(err instanceof Unexpressible)) throw err;
    return {
      ...base,
      description,
      input: [],
      output: [],
      disabled: err.message,
    };
  }
}

function mapInputs(
  doc: Record<string, unknown>,
  op: Record<string, unknown>,
  pathItem: Record<string, unknown>,
  plan: OperationPlan,
  mapper: ReturnType<typeof schemaMapper>,
  skipHeaders: ReadonlySet<string>,
): Field[] {
  // operation parameters override path-item ones of the same name and location
  const params = new Map<string, Record<string, unknown>>();
  for (const raw of [...asArray(pathItem.parameters), ...asArray(op.parameters)]) {
    let param: Record<string, unknown>;
    try {
      param = deref(doc, raw);
    } catch (err) {
      throw new Unexpressible(`parameter: ${(err as Error).message}`);
    }
    if (typeof param?.name !== "string" || typeof param.in !== "string") {
      throw new Unexpressible("parameter without name or in");
    }
    params.set(`${param.in}:${param.name}`, param);
  }
  const taken = new Set<string>();
  const fields: Field[] = [];
  const claim = (wire: string, where: string): string => {
    let name = identifierFor(wire);
    if (taken.has(name)) name = `${name}_${where}`;
    for (let i = 2; taken.has(name); i++) name = `${identifierFor(wire)}_${where}_${i}`;
    taken.add(name);
    return name;
  };
  for (const where of ["path", "query", "header", "cookie"] as const) {
    for (const param of params.values()) {
      if (param.in !== where) continue;
      const wire = param.name as string;
      const required = where === "path" || param.required === true;
      const at = `input.${wire}`;
      if (where === "cookie") {
        if (required) throw new Unexpressible(`${at}: cookie parameters are not supported`);
        continue;
      }
      if (
        where === "header" && (IGNORED_HEADERS.has(wire.toLowerCase()) ||
          skipHeaders.has(wire.toLowerCase()))
      ) continue;
      let schema = param.schema;
      if (schema === undefined && isObj(param.content)) {
        const json = jsonMedia(param.content);
        if (!json) throw new Unexpressible(`${at}: parameter content is not JSON`);
        schema = (param.content as Record<string, Record<string, unknown>>)[json].schema;
      }
      let type;
      try {
        type = mapper.convert(schema ?? { type: "string" }, "input", at);
      } catch (err) {
        if (err instanceof Unexpressible && !required) {
          mapper.notes.push(
            `${wire} (${where}) not exposed (${err.message.replace(/^[^:]*: /, "")})`,
          );
          continue;
        }
        throw err;
      }
      const name = claim(wire, where);
      const style = typeof param.style === "string"
        ? param.style
        : where === "query"
        ? "form"
        : "simple";
      const explode = typeof param.explode === "boolean" ? param.explode : style === "form";
      plan.inputs.push({ name, in: where, wire, style, explode });
      fields.push(fieldOf(name, type, required, "input"));
    }
  }
  if (op.requestBody !== undefined) {
    let body: Record<string, unknown>;
    try {
      body = deref(doc, op.requestBody);
    } catch (err) {
      throw new Unexpressible(`requestBody: ${(err as Error).message}`);
    }
    const content = isObj(body.content) ? body.content : {};
    const json = jsonMedia(content);
    const required = body.required === true;
    if (!json) {
      const types = Object.keys(content).join(", ") || "none";
      if (required) throw new Unexpressible(`request body is not JSON (${types})`);
      mapper.notes.push(`the optional ${types} request body is not sent`);
      return fields;
    }
    plan.hasBody = true;
    plan.bodyRequired = required;
    const schema = (content[json] as Record<string, unknown>)?.schema ?? {};
    const resolved = mapper.resolve(schema, "input.body");
    const props = isObj(resolved.properties) ? resolved.properties : undefined;
    if (
      props && (resolved.type === undefined || resolved.type === "object") &&
      resolved.oneOf === undefined && resolved.anyOf === undefined
    ) {
      const need = new Set(Array.isArray(resolved.required) ? resolved.required.map(String) : []);
      for (const [wire, sub] of Object.entries(props)) {
        if (isObj(sub) && sub.readOnly === true) continue;
        const fieldRequired = required && need.has(wire);
        let type;
        try {
          type = mapper.convert(sub, "input", `input.${wire}`);
        } catch (err) {
          if (err instanceof Unexpressible && !fieldRequired) {
            mapper.notes.push(`${wire} not exposed (${err.message.replace(/^[^:]*: /, "")})`);
            continue;
          }
          throw err;
        }
        const name = claim(wire, "body");
        plan.inputs.push({ name, in: "body", wire });
        fields.push(fieldOf(name, type, fieldRequired, "input"));
      }
    } else {
      const type = mapper.convert(schema, "input", "input.body");
      const name = claim("body", "body");
      plan.inputs.push({ name, in: "body_whole", wire: "body" });
      fields.push(fieldOf(name, type, required, "input"));
    }
  }
  return fields;
}

function mapOutput(
  doc: Record<string, unknown>,
  op: Record<string, unknown>,
  plan: OperationPlan,
  mapper: ReturnType<typeof schemaMapper>,
  method: string,
  path: string,
): Field[] {
  const responses = isObj(op.responses) ? op.responses : {};
  const codes = Object.keys(responses).filter((code) => /^2(\d\d|XX)$/i.test(code)).sort();
  if (codes.length === 0) return [];
  const code = codes[0];
  let res: Record<string, unknown>;
  try {
    res = deref(doc, responses[code]);
  } catch (err) {
    throw new Unexpressible(`response ${code}: ${(err as Error).message}`);
  }
  const content = isObj(res?.content) ? res.content : {};
  if (Object.keys(content).length === 0) return [];
  const json = jsonMedia(content);
  if (!json) {
    throw new Unexpressible(`response ${code} is not JSON (${Object.keys(content).join(", ")})`);
  }
  const schema = (content[json] as Record<string, unknown>)?.schema;
  if (schema === undefined) return [];
  plan.responseSchema = schema;
  plan.responsePointer = `#/paths/${pointerPart(path)}/${method}/responses/${
    pointerPart(code)
  }/content/${pointerPart(json)}/schema`;
  let type;
  try {
    type = mapper.convert(schema, "output", "output");
  } catch (err) {
    // a free-form object answer: the call is still useful for its effect; its body is not shown
    if (!(err instanceof Unexpressible) || err.message !== "output: free-form object") throw err;
    mapper.notes.push("the response (a free-form object) is not exposed");
    plan.responseSchema = undefined;
    plan.responsePointer = undefined;
    return [];
  }
  if (type.kind === "struct") return type.fields;
  plan.wrapped = true;
  return [t.field("body", type)];
}

function pointerPart(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** The JSON media type of a content map (`application/json`, `*+json`), if any. */
function jsonMedia(content: unknown): string | undefined {
  if (!isObj(content)) return undefined;
  const keys = Object.keys(content);
  return keys.find((key) => /^application\/json(\s*;.*)?$/i.test(key)) ??
    keys.find((key) => /^application\/[^;]*\+json(\s*;.*)?$/i.test(key)) ??
    keys.find((key) => key === "*/*" || key === "application/*");
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function isObj(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function firstSentence(text: string): string {
  const line = text.split("\n").find((candidate) => candidate.trim() !== "")?.trim() ?? "";
  const match = /^(.+?[.!?])(\s|$)/.exec(line);
  return (match ? match[1] : line).slice(0, 200);
}
