/**
 * Maps a request target to an object key. Validation runs on the raw target as the client sent
 * it (`req.url`), never on `new URL(...).pathname`, which resolves `..` segments and turns `\`
 * into `/` before we could see them (WHATWG URL parsing, measured on Deno 2.9).
 *
 * @module
 */
import { proxyError } from "../errors.ts";

/** S3's limit on the UTF-8 length of an object key. */
export const MAX_KEY_BYTES = 1024;

// RFC 3986 pchar without pct-encoded (checked separately) plus the segment separator.
const RAW_ALLOWED = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/;
const ESCAPE = /%(.{0,2})/gs;
// Encoded delimiters and NUL: rejected before decoding, so "%2F" can never become a separator.
const ENCODED_DELIMITER = /^(2f|5c|00)$/i;
// Control characters after decoding (C0, DEL, C1).
// deno-lint-ignore no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const encoder = new TextEncoder();

function invalid(why: string) {
  return proxyError("invalid_input", `Cannot read object: ${why}`);
}

/**
 * The path of a request URL exactly as the client sent it, without the query string.
 *
 * @example Usage
 * ```ts
 * import { rawPathOf } from "./target.ts";
 * rawPathOf("http://h:8080/a/../b?x=1"); // "/a/../b"
 * ```
 */
export function rawPathOf(url: string): string {
  const authority = url.indexOf("://");
  const start = url.indexOf("/", authority < 0 ? 0 : authority + 3);
  if (start < 0) return "/";
  const end = url.slice(start).search(/[?#]/);
  return end < 0 ? url.slice(start) : url.slice(start, start + end);
}

/**
 * Validates a raw request path and returns the object key under `prefix`.
 *
 * Rejected with 400 `invalid_input`: characters outside RFC 3986 `pchar` (backslash, NUL,
 * control characters, spaces, …), `%` not followed by two hex digits, encoded `/` `\` NUL
 * (`%2F` `%5C` `%00`), escapes that do not decode to UTF-8, decoded control characters, `.` and
 * `..` segments (raw or encoded), empty segments (`//`, a trailing `/`, the bare `/`), and keys
 * longer than {@linkcode MAX_KEY_BYTES}. Other escapes are decoded once (`%3A` → `:`); a raw `:`
 * is legal, as real mirrors use it in version directories.
 *
 * @example Usage
 * ```ts
 * import { objectKeyOf } from "./target.ts";
 * objectKeyOf("/images/20250816_23%3A08/rootfs.tar.xz", "mirror/");
 * // "mirror/images/20250816_23:08/rootfs.tar.xz"
 * ```
 * @throws {HttpError} 400 `invalid_input` naming what was wrong (never echoing the path).
 */
export function objectKeyOf(rawPath: string, prefix: string): string {
  if (!rawPath.startsWith("/")) throw invalid("the path must start with /");
  if (!RAW_ALLOWED.test(rawPath)) {
    throw invalid("the path contains a character that is not allowed");
  }
  for (const [, hex] of rawPath.matchAll(ESCAPE)) {
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) throw invalid("the path contains a malformed escape");
    if (ENCODED_DELIMITER.test(hex)) throw invalid("the path contains an encoded delimiter");
  }
  let path: string;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    throw invalid("the path does not decode to UTF-8");
  }
  if (CONTROL.test(path)) throw invalid("the path contains a control character");
  const segments = path.slice(1).split("/");
  for (const segment of segments) {
    if (segment === "") throw invalid("the path contains an empty segment");
    if (segment === "." || segment === "..") throw invalid("the path contains a dot segment");
  }
  const key = prefix + segments.join("/");
  if (encoder.encode(key).byteLength > MAX_KEY_BYTES) {
    throw invalid(`the object key would exceed ${MAX_KEY_BYTES} bytes`);
  }
  return key;
}

/**
 * Normalises the configured prefix: empty stays empty, anything else ends with exactly one `/`.
 *
 * @example Usage
 * ```ts
 * import { normalizePrefix } from "./target.ts";
 * normalizePrefix("mirror"); // "mirror/"
 * ```
 */
export function normalizePrefix(prefix: string): string {
  const trimmed = prefix.replace(/^\/+|\/+$/g, "");
  return trimmed === "" ? "" : trimmed + "/";
}
