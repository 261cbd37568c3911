/**
 * Conditional requests (RFC 9110 §13): `If-Match`, `If-None-Match`, `If-Modified-Since` and
 * `If-Unmodified-Since` evaluated in §13.2.2's order against the stored object's validators, and
 * `If-Range` deciding whether a `Range` applies. Evaluated here, not passed to storage: S3 has no
 * If-Range, and S3-compatible test servers (s3rver) ignore If-Match and If-Unmodified-Since on GET.
 * If-Range follows RFC 9110, not the brief's letter: docs/image-proxy.md#if-range-is-evaluated.
 *
 * @module
 */
import { proxyError } from "../errors.ts";
import { type EntityTag, parseEntityTagList, strongMatch, weakMatch } from "./etag.ts";
import { parseHttpDate } from "./http_date.ts";
import { parseEntityTag } from "./etag.ts";

/** The conditional headers of a request, parsed. */
export interface Conditions {
  ifMatch?: "*" | EntityTag[];
  ifNoneMatch?: "*" | EntityTag[];
  /** Seconds since the epoch. */
  ifModifiedSince?: number;
  ifUnmodifiedSince?: number;
  /** Raw `If-Range` value (evaluated only together with a `Range`). */
  ifRange?: string;
}

/** The stored object's validators. */
export interface Validators {
  /** Quoted entity tag, e.g. `"9b2cf535f27731c974343645a3985328"`. */
  etag?: string;
  /** Last modification, seconds since the epoch. */
  lastModified?: number;
}

/** What the preconditions decide. */
export type PreconditionOutcome = "proceed" | "not_modified" | "precondition_failed";

function malformed(header: string) {
  return proxyError("invalid_input", `Cannot evaluate ${header}: the value is malformed`);
}

/**
 * Parses the conditional headers; malformed `If-Match`/`If-None-Match` (not `*` or an entity-tag
 * list) and malformed `If-Modified-Since`/`If-Unmodified-Since` (not one HTTP-date) are refused.
 *
 * @example Usage
 * ```ts
 * import { readConditions } from "./preconditions.ts"; readConditions(new Headers({
 * "if-none-match": '"a"' })).ifNoneMatch; // [{ weak: false, opaque: '"a"' }]
 * ```
 * @throws {HttpError} 400 `invalid_input` naming the malformed header.
 */
export function readConditions(headers: Headers, now?: number): Conditions {
  const out: Conditions = {};
  for (const [name, key] of [["If-Match", "ifMatch"], ["If-None-Match", "ifNoneMatch"]] as const) {
    const value = headers.get(name);
    if (value === null) continue;
    const list = parseEntityTagList(value);
    if (list === null) throw malformed(name);
    out[key] = list;
  }
  const dates = [
    ["If-Modified-Since", "ifModifiedSince"],
    ["If-Unmodified-Since", "ifUnmodifiedSince"],
  ] as const;
  for (const [name, key] of dates) {
    const value = headers.get(name);
    if (value === null) continue;
    const seconds = parseHttpDate(value, now);
    if (seconds === null) throw malformed(name);
    out[key] = seconds;
  }
  const ifRange = headers.get("If-Range");
  if (ifRange !== null) out.ifRange = ifRange;
  return out;
}

/**
 * Evaluates the preconditions of a GET or HEAD in RFC 9110 §13.2.2 order: If-Match (strong), else
 * If-Unmodified-Since → 412; then If-None-Match (weak), else If-Modified-Since → 304.
 *
 * @example Usage
 * ```ts
 * import { evaluatePreconditions } from "./preconditions.ts";
 * evaluatePreconditions({ ifNoneMatch: "*" }, { etag: '"a"' }); // "not_modified"
 * ```
 */
export function evaluatePreconditions(c: Conditions, v: Validators): PreconditionOutcome {
  if (c.ifMatch !== undefined) {
    const ok = c.ifMatch === "*" ||
      (v.etag !== undefined && c.ifMatch.some((t) => strongMatch(t, v.etag!)));
    if (!ok) return "precondition_failed";
  } else if (c.ifUnmodifiedSince !== undefined && v.lastModified !== undefined) {
    if (v.lastModified > c.ifUnmodifiedSince) return "precondition_failed";
  }
  if (c.ifNoneMatch !== undefined) {
    const matches = c.ifNoneMatch === "*" ||
      (v.etag !== undefined && c.ifNoneMatch.some((t) => weakMatch(t, v.etag!)));
    if (matches) return "not_modified";
  } else if (c.ifModifiedSince !== undefined && v.lastModified !== undefined) {
    if (v.lastModified <= c.ifModifiedSince) return "not_modified";
  }
  return "proceed";
}

/**
 * Whether a `Range` may be served (RFC 9110 §13.1.5): yes without `If-Range`; with it, only when
 * it is a strong entity tag matching the current one, or an HTTP-date exactly equal to the
 * object's last modification. A weak tag or an unparsable value never matches: the full object
 * is served.
 *
 * @example Usage
 * ```ts
 * import { rangeAllowed } from "./preconditions.ts";
 * rangeAllowed({ ifRange: '"a"' }, { etag: '"a"' }); // true
 * rangeAllowed({ ifRange: 'W/"a"' }, { etag: '"a"' }); // false
 * ```
 */
export function rangeAllowed(c: Conditions, v: Validators, now?: number): boolean {
  if (c.ifRange === undefined) return true;
  const value = c.ifRange.trim();
  if (value.startsWith('"') || value.startsWith("W/")) {
    const tag = parseEntityTag(value);
    return tag !== null && v.etag !== undefined && strongMatch(tag, v.etag);
  }
  const seconds = parseHttpDate(value, now);
  return seconds !== null && v.lastModified !== undefined && seconds === v.lastModified;
}
