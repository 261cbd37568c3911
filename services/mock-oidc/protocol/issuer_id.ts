/**
 * Issuer ids. An id is one or more decoded path segments joined by `/` (`default`, `realms/x`,
 * `tenant1/v2.0`), as Keycloak- and Entra-style issuers are. Ids no URL can reach, or whose URL
 * would carry raw control characters, are refused (protocol routes 404, `/_mock` 422), by the same
 * rules for every segment: an empty segment, `.` and `..` (dot segments, removed by every URL
 * parser), the reserved prefix `_mock`, C0/C1 control characters (NUL and newline included),
 * segments longer than {@linkcode MAX_ISSUER_SEGMENT_LENGTH}; and ids of more than
 * {@linkcode MAX_ISSUER_SEGMENTS} segments. Everything else is served, and wherever the id becomes
 * part of a URL (discovery `issuer`, `iss`, endpoint URLs) each segment is percent-encoded as a
 * path segment: `%`, `?`, `#`, space and non-ASCII appear as `%25`, `%3F`, `%23`, `%20`, `%C3%BC`,
 * which is the form URL parsers give clients for the same path. The `kid` is the id itself.
 * @module
 */

/** Reserved issuer-id prefix (the control plane), refused at the start of every segment. */
const RESERVED_PREFIX = "_mock";
/** Longest segment of an issuer id. */
export const MAX_ISSUER_SEGMENT_LENGTH = 256;
/** Most segments of an issuer id. */
export const MAX_ISSUER_SEGMENTS = 8;

// deno-lint-ignore no-control-regex -- the point is to find control characters
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Why `id` cannot be an issuer, or `undefined`. */
export function issuerIdProblem(id: string): string | undefined {
  if (id === "") return "issuer must not be empty";
  const segments = id.split("/");
  if (segments.length > MAX_ISSUER_SEGMENTS) {
    return `issuer must have at most ${MAX_ISSUER_SEGMENTS} path segments`;
  }
  for (const segment of segments) {
    const problem = segmentProblem(segment);
    if (problem) return problem;
  }
  return undefined;
}

function segmentProblem(segment: string): string | undefined {
  if (segment === "") return "issuer must not have an empty path segment";
  if (segment === "." || segment === "..") return "issuer must not have a dot segment";
  if (segment.startsWith(RESERVED_PREFIX)) {
    return `the issuer prefix ${RESERVED_PREFIX} is reserved`;
  }
  if (CONTROL.test(segment)) return "issuer must not contain control characters";
  if (segment.length > MAX_ISSUER_SEGMENT_LENGTH) {
    return `issuer path segments must be at most ${MAX_ISSUER_SEGMENT_LENGTH} characters`;
  }
  return undefined;
}

/** RFC 3986 `pchar` minus `%`: what a path segment may carry unencoded. */
const PCHAR = /[A-Za-z0-9\-._~!$&'()*+,;=:@]/;

/**
 * One segment of an id as a URL path segment.
 *
 * @example Usage
 * ```ts
 * import { issuerSegment } from "./issuer_id.ts";
 * issuerSegment("a b?#%"); // "a%20b%3F%23%25"
 * issuerSegment("tenant:1@x"); // "tenant:1@x"
 * ```
 */
export function issuerSegment(segment: string): string {
  let out = "";
  for (const ch of segment) out += PCHAR.test(ch) ? ch : encodeURIComponent(ch);
  return out;
}

/**
 * The id as a URL path: each segment encoded ({@linkcode issuerSegment}), joined by `/`.
 *
 * @example Usage
 * ```ts
 * import { issuerPath } from "./issuer_id.ts";
 * issuerPath("tenant1/v2.0"); // "tenant1/v2.0"
 * issuerPath("realms/a b"); // "realms/a%20b"
 * ```
 */
export function issuerPath(id: string): string {
  return id.split("/").map(issuerSegment).join("/");
}
