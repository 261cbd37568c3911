/**
 * Request-body checks for the control plane: malformed JSON is a 400, anything that parses but
 * breaks the schema (unknown property, wrong type, reserved issuer, bad duration or instant) is a
 * 422 whose `errors[]` names each offending location, such as `body.duration`.
 * @module
 */
import { type ErrorDetail, HttpError } from "@svc/shared/problem";
import { readBody } from "@svc/shared/http";
import { issuerIdProblem } from "../protocol/issuer_id.ts";

/** Largest control-plane request body; every documented body is a few hundred bytes. */
const CONTROL_BODY_LIMIT = 1024 * 1024;

export type FieldType = "string" | "boolean" | "integer" | "number" | "object" | "array";

/** One property of a JSON object body. */
export interface FieldRule {
  type: FieldType;
  required?: boolean;
  nullable?: boolean;
  enum?: readonly string[];
  /** Rule for each element when `type` is `"array"`. */
  items?: FieldRule;
  /** Properties when `type` is `"object"` and the object is closed (unknown keys rejected). */
  properties?: Record<string, FieldRule>;
  /** Extra check on a well-typed value; returns the reason it is invalid. */
  check?: (value: unknown) => string | undefined;
}

/** Deepest nesting accepted in user-supplied claims (JWT claim sets are shallow in practice). */
const MAX_CLAIMS_DEPTH = 32;

/**
 * The `check` of a claims object: refuses nesting deeper than {@linkcode MAX_CLAIMS_DEPTH}
 * levels, which would overflow the stack when the token is built and signed. Iterative, so even
 * a 100 000-deep value is measured safely.
 */
export function claimsDepthProblem(value: unknown): string | undefined {
  let level: unknown[] = [value];
  for (let depth = 0; level.length > 0; depth++) {
    if (depth > MAX_CLAIMS_DEPTH) return `nested deeper than ${MAX_CLAIMS_DEPTH} levels`;
    const next: unknown[] = [];
    for (const v of level) {
      if (v !== null && typeof v === "object") {
        for (const child of Object.values(v)) next.push(child);
      }
    }
    level = next;
  }
  return undefined;
}

/** A 422 problem listing every schema violation. */
export function validationError(errors: ErrorDetail[]): HttpError {
  return new HttpError(422, "validation_failed", "validation failed", { errors });
}

/**
 * Reads a JSON body. An empty body reads as `{}` so that bodiless calls like reset and a
 * default take work; invalid JSON throws a 400 problem.
 */
export async function readJsonBody(req: Request): Promise<unknown> {
  const bytes = await readBody(req, { limit: CONTROL_BODY_LIMIT });
  const text = new TextDecoder().decode(bytes);
  if (text.trim() === "") return {};
  // Only JSON is accepted: a form or text body is what a cross-site <form> can send without a
  // preflight, so refusing it keeps web pages from driving /_mock.
  const type = req.headers.get("content-type")?.split(";")[0].trim().toLowerCase() ?? "";
  if (type !== "application/json" && !/^application\/[a-z0-9.+-]+\+json$/.test(type)) {
    throw new HttpError(415, "unsupported_media_type", "request body must be application/json", {
      headers: { accept: "application/json" },
    });
  }
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new HttpError(400, "malformed_json", "request body is not valid JSON", {
      cause,
      errors: [{ location: "body", message: (cause as Error).message }],
    });
  }
}

/** Checks `value` against a closed object schema and returns it typed; throws a 422 otherwise. */
export function validateObject<T>(
  value: unknown,
  properties: Record<string, FieldRule>,
  location = "body",
): T {
  const errors: ErrorDetail[] = [];
  checkValue(value, { type: "object", properties, required: true }, location, errors);
  if (errors.length > 0) throw validationError(errors);
  return value as T;
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && Number.isInteger(value)) return "integer";
  return typeof value;
}

function matchesType(value: unknown, type: FieldType): boolean {
  const actual = typeOf(value);
  return actual === type || (type === "number" && actual === "integer");
}

function checkValue(value: unknown, rule: FieldRule, location: string, errors: ErrorDetail[]) {
  if (value === null) {
    if (!rule.nullable) errors.push({ location, message: `expected ${rule.type}`, value });
    return;
  }
  if (!matchesType(value, rule.type)) {
    errors.push({ location, message: `expected ${rule.type}, got ${typeOf(value)}`, value });
    return;
  }
  if (rule.enum && !rule.enum.includes(value as string)) {
    errors.push({ location, message: `expected one of ${rule.enum.join(", ")}`, value });
    return;
  }
  if (rule.type === "array" && rule.items) {
    (value as unknown[]).forEach((item, i) =>
      checkValue(item, rule.items!, `${location}[${i}]`, errors)
    );
  }
  if (rule.type === "object" && rule.properties) {
    checkProperties(value as Record<string, unknown>, rule.properties, location, errors);
  }
  const reason = rule.check?.(value);
  if (reason) errors.push({ location, message: reason, value });
}

function checkProperties(
  object: Record<string, unknown>,
  properties: Record<string, FieldRule>,
  location: string,
  errors: ErrorDetail[],
) {
  for (const [name, rule] of Object.entries(properties)) {
    if (object[name] === undefined) {
      if (rule.required) {
        errors.push({ location: `${location}.${name}`, message: "required property is missing" });
      }
      continue;
    }
    checkValue(object[name], rule, `${location}.${name}`, errors);
  }
  for (const name of Object.keys(object)) {
    if (!Object.hasOwn(properties, name)) {
      errors.push({
        location: `${location}.${name}`,
        message: "unknown property",
        value: object[name],
      });
    }
  }
}

/** Issuer ids: one or more path segments, the rules of `protocol/issuer_id.ts` in each. */
export function issuerProblem(value: unknown): string | undefined {
  return issuerIdProblem(value as string);
}
