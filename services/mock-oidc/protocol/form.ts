/**
 * Reading `application/x-www-form-urlencoded` request bodies of the protocol endpoints.
 *
 * @module
 */

import { OAuthError } from "./oauth_error.ts";

/** Largest accepted form body (upstream's Netty cap). */
export const FORM_LIMIT_BYTES = 1024 * 1024;

/** Parse the request body as a form; other media types and empty bodies give no params. */
export async function readForm(req: Request): Promise<URLSearchParams> {
  if (req.method === "GET" || req.method === "HEAD" || !req.body) return new URLSearchParams();
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > FORM_LIMIT_BYTES) throw tooLarge();
  const bytes = new Uint8Array(await req.arrayBuffer());
  if (bytes.length > FORM_LIMIT_BYTES) throw tooLarge();
  const type = req.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    return new URLSearchParams();
  }
  return new URLSearchParams(new TextDecoder().decode(bytes));
}

function tooLarge(): OAuthError {
  return new OAuthError(413, "invalid_request", `request body exceeds ${FORM_LIMIT_BYTES} bytes`);
}
