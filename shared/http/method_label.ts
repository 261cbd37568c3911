/** The request methods of RFC 9110 and RFC 5789, the only ones that become label values. */
const KNOWN_METHODS: ReadonlySet<string> = new Set([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "DELETE",
  "CONNECT",
  "OPTIONS",
  "TRACE",
  "PATCH",
]);

/**
 * The request method as a metrics or span label: one of the known methods, anything else (invented
 * or lowercase methods) `_OTHER`, as OpenTelemetry's HTTP conventions ask. A client therefore cannot
 * create new time series by inventing methods.
 *
 * @example Usage
 * ```ts
 * import { methodLabel } from "@svc/shared/http";
 * import assert from "node:assert/strict";
 * assert.equal(methodLabel("GET"), "GET");
 * assert.equal(methodLabel("FOO"), "_OTHER");
 * ```
 */
export function methodLabel(method: string): string {
  return KNOWN_METHODS.has(method) ? method : "_OTHER";
}
