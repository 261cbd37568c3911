/**
 * Issuer ids. An id is one decoded path segment. Ids no URL can reach, or whose URL would carry
 * raw control characters, are refused (protocol routes 404, `/_mock` 422): empty, `.` and `..`
 * (dot segments, removed by every URL parser), a `/`, the reserved prefix `_mock`, C0/C1 control
 * characters (NUL and newline included), and ids longer than {@linkcode MAX_ISSUER_ID_LENGTH}.
 * Everything else is served, and wherever the id becomes part of a URL (discovery `issuer`,
 * `iss`, endpoint URLs) it is percent-encoded as a path segment: `%`, `?`, `#`, space and
 * non-ASCII appear as `%25`, `%3F`, `%23`, `%20`, `%C3%BC`, which is the form URL parsers give
 * clients for the same path. The `kid` is the id itself.
 * @module
 */

/** Reserved issuer-id prefix (the control plane). */
export const RESERVED_PREFIX = "_mock";
/** Longest issuer id. */
export const MAX_ISSUER_ID_LENGTH = 256;

// deno-lint-ignore no-control-regex -- the point is to find control characters
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Why `id` cannot be an issuer, or `undefined`. */
export function issuerIdProblem(id: string): string | undefined {
  if (id === "") return "issuer must not be empty";
  if (id.includes("/")) return "issuer must be a single path segment";
  if (id === "." || id === "..") return "issuer must not be a dot segment";
  if (id.startsWith(RESERVED_PREFIX)) return `the issuer prefix ${RESERVED_PREFIX} is reserved`;
  if (CONTROL.test(id)) return "issuer must not contain control characters";
  if (id.length > MAX_ISSUER_ID_LENGTH) {
    return `issuer must be at most ${MAX_ISSUER_ID_LENGTH} characters`;
  }
  return undefined;
}

/** RFC 3986 `pchar` minus `%`: what a path segment may carry unencoded. */
const PCHAR = /[A-Za-z0-9\-._~!$&'()*+,;=:@]/;

/**
 * The id as a URL path segment.
 *
 * @example Usage
 * ```ts
 * import { issuerSegment } from "./issuer_id.ts";
 * issuerSegment("a b?#%"); // "a%20b%3F%23%25"
 * issuerSegment("tenant:1@x"); // "tenant:1@x"
 * ```
 */
export function issuerSegment(id: string): string {
  let out = "";
  for (const ch of id) out += PCHAR.test(ch) ? ch : encodeURIComponent(ch);
  return out;
}
