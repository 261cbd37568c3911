/**
 * Input validation in Huma's manner: parse failures are 400, schema violations 422 with every
 * problem listed (`location` like `body.title` or `query.limit`, Huma's message texts).
 * @module
 */
import { type ErrorDetail, HttpError } from "@svc/shared/problem";
import { LIMITS } from "../http/schemas.ts";

function validationFailed(errors: ErrorDetail[]): HttpError {
  return new HttpError(422, "validation_failed", "validation failed", { errors });
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why a string cannot be stored as it was sent, or `undefined`. Postgres text cannot hold U+0000,
 * and an unpaired UTF-16 surrogate (legal in JSON's `\uD800` escapes) has no UTF-8 form: the
 * driver would store U+FFFD instead, so the todo read back would differ from the one written.
 * Both are refused here, before any SQL, identically on every backend.
 */
export function unstorableText(text: string): string | undefined {
  if (text.includes("\u0000")) return "expected string without NUL (U+0000) characters";
  if (LONE_SURROGATE.test(text)) return "expected valid Unicode (unpaired surrogate)";
  return undefined;
}

/**
 * Parses a JSON body (its text, as `readText` decodes it) that must be an object: 400 when empty
 * or malformed, 422 otherwise.
 */
export function parseJsonObject(text: string): Record<string, unknown> {
  if (text.trim() === "") {
    throw new HttpError(400, "body_required", "request body is required");
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new HttpError(400, "malformed_json", "malformed JSON", {
      errors: [{ location: "body", message: (err as Error).message }],
    });
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw validationFailed([{ location: "body", message: "expected object", value: body }]);
  }
  return body as Record<string, unknown>;
}

/**
 * The number of code points in `text`, as `[...text].length` counts them (a surrogate pair is
 * one, a lone surrogate one), without making the array.
 */
function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** Parses and checks a CreateTodoInputBody (its text); returns the title. */
export function parseCreateTodo(text: string): { title: string } {
  const record = parseJsonObject(text);
  const errors: ErrorDetail[] = [];
  for (const key in record) { // a parsed object: own keys only, in order, no array of them
    if (key !== "title" && key !== "$schema") {
      errors.push({ location: `body.${key}`, message: "unexpected property", value: record[key] });
    }
  }
  if ("$schema" in record && typeof record.$schema !== "string") {
    errors.push({ location: "body.$schema", message: "expected string", value: record.$schema });
  }
  const title = record.title;
  if (!("title" in record)) {
    errors.push({
      location: "body",
      message: "expected required property title to be present",
      value: record,
    });
  } else if (typeof title !== "string") {
    errors.push({ location: "body.title", message: "expected string", value: title });
  } else {
    // Length in characters (code points), as JSON Schema counts it, not UTF-16 units.
    const length = codePoints(title);
    if (length < LIMITS.titleMin) {
      errors.push({
        location: "body.title",
        message: `expected length >= ${LIMITS.titleMin}`,
        value: title,
      });
    } else if (length > LIMITS.titleMax) {
      errors.push({
        location: "body.title",
        message: `expected length <= ${LIMITS.titleMax}`,
        value: title,
      });
    }
    const unstorable = unstorableText(title);
    if (unstorable) errors.push({ location: "body.title", message: unstorable, value: title });
  }
  if (errors.length > 0) throw validationFailed(errors);
  return { title: title as string };
}

/**
 * Reads `limit` and `cursor` from the query string (an empty value counts as absent). A rejected
 * `limit` is echoed in `value` as the client sent it (a string): `99999999999999999999` must not
 * come back as the double `100000000000000000000`.
 */
export function parseListQuery(url: URL): { limit: number; cursor?: string } {
  const errors: ErrorDetail[] = [];
  const rawLimit = url.searchParams.get("limit") ?? "";
  let limit: number = LIMITS.limitDefault;
  if (rawLimit !== "") {
    if (!/^[+-]?\d+$/.test(rawLimit)) {
      errors.push({ location: "query.limit", message: "expected integer", value: rawLimit });
    } else {
      limit = Number(rawLimit);
      if (limit < LIMITS.limitMin) {
        errors.push({
          location: "query.limit",
          message: `expected number >= ${LIMITS.limitMin}`,
          value: rawLimit,
        });
      } else if (limit > LIMITS.limitMax) {
        errors.push({
          location: "query.limit",
          message: `expected number <= ${LIMITS.limitMax}`,
          value: rawLimit,
        });
      }
    }
  }
  if (errors.length > 0) throw validationFailed(errors);
  const cursor = url.searchParams.get("cursor") ?? "";
  return cursor === "" ? { limit } : { limit, cursor };
}

/**
 * The `{id}` of a todo or key path, percent-decoded once. Malformed escapes are kept as sent: no
 * todo or key has such an id, so the lookup ends in 404.
 */
export function pathId(segment: string | undefined): string {
  try {
    return decodeURIComponent(segment ?? "");
  } catch {
    return segment ?? "";
  }
}
