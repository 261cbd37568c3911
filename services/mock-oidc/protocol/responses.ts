/**
 * Small response builders shared by the protocol endpoints.
 *
 * @module
 */

/** JSON response; token-bearing responses pass `noStore`. */
export function jsonResponse(
  body: unknown,
  options: { status?: number; noStore?: boolean } = {},
): Response {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (options.noStore) {
    headers["Cache-Control"] = "no-store";
    headers["Pragma"] = "no-cache";
  }
  return new Response(JSON.stringify(body), { status: options.status ?? 200, headers });
}

/** HTML page with no external loads (CSP forbids them). */
export function htmlResponse(
  body: string,
  options: { status?: number; csp?: boolean } = {},
): Response {
  const headers: Record<string, string> = {
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": "no-store",
  };
  if (options.csp ?? true) {
    headers["Content-Security-Policy"] =
      "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; form-action *";
  }
  return new Response(body, { status: options.status ?? 200, headers });
}

/** 302 to `location`. */
export function redirectResponse(location: string): Response {
  return new Response(null, { status: 302, headers: { Location: location } });
}

/** Escape text for HTML element and attribute content (the tool pages' escaper). */
export { escapeHtml } from "../ui/html.ts";
