/**
 * The Incus REST envelope as the real 6.0 server sends it (all seven keys), and the filter subset
 * (`config.user.x eq v` joined by `and`/`or`, with `not`) the controller relies on.
 *
 * @module
 */

/** A sync response. */
export function sync(metadata: unknown, status = 200, headers: HeadersInit = {}) {
  return Response.json({
    type: "sync",
    status: "Success",
    status_code: 200,
    operation: "",
    error_code: 0,
    error: "",
    metadata,
  }, { status, headers });
}

/** An error response; the message goes in `error`, as the real server does. */
export function incusError(code: number, message: string, status = code) {
  return Response.json({
    type: "error",
    status: "",
    status_code: 0,
    operation: "",
    error_code: code,
    error: message,
    metadata: null,
  }, { status });
}

/** An async response: 202 with Location and the Operation. */
export function asyncResponse(op: { id: string }) {
  const path = `/1.0/operations/${op.id}`;
  return Response.json({
    type: "async",
    status: "Operation created",
    status_code: 100,
    operation: path,
    error_code: 0,
    error: "",
    metadata: op,
  }, { status: 202, headers: { Location: path } });
}

function tokenize(text: string): string[] {
  // Incus 6.0.4 rejects a double-quoted value ("Invalid filter: unterminated quote").
  if (text.includes('"')) throw new Error("Invalid filter: unterminated quote");
  return text.split(/\s+/).filter((t) => t !== "");
}

/** Evaluates an Incus filter against an object's fields (`config.<key>` reads its config). */
export function matchesFilter(
  filter: string,
  field: (name: string) => string | undefined,
): boolean {
  const t = tokenize(filter);
  let result: boolean | undefined;
  let join: "and" | "or" = "and";
  for (let i = 0; i < t.length;) {
    let negate = false;
    if (t[i] === "not") {
      negate = true;
      i++;
    }
    const [name, op, value] = [t[i], t[i + 1], t[i + 2]];
    if (value === undefined || (op !== "eq" && op !== "ne")) throw new Error("Invalid filter");
    let v = field(name) === value;
    if (op === "ne") v = !v;
    if (negate) v = !v;
    result = result === undefined ? v : join === "and" ? result && v : result || v;
    i += 3;
    if (i < t.length) {
      if (t[i] !== "and" && t[i] !== "or") throw new Error("Invalid filter");
      join = t[i] as "and" | "or";
      i++;
    }
  }
  return result ?? true;
}
