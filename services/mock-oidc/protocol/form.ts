/**
 * Reading `application/x-www-form-urlencoded` request bodies of the protocol endpoints.
 *
 * @module
 */

import { readBody } from "@svc/shared/http";
import { HttpError } from "@svc/shared/problem";
import { OAuthError } from "./oauth_error.ts";

/** Largest accepted form body (upstream's Netty cap). */
const FORM_LIMIT_BYTES = 1024 * 1024;

/**
 * Parse the request body as a form; other media types and empty bodies give no params. The body
 * is read with the kit's bounded reader, so the bytes a capture already read are used as they are.
 */
export async function readForm(req: Request): Promise<URLSearchParams> {
  if (req.method === "GET" || req.method === "HEAD") return new URLSearchParams();
  let bytes: Uint8Array;
  try {
    bytes = await readBody(req, { limit: FORM_LIMIT_BYTES, releaseChunks: true });
  } catch (err) {
    if (err instanceof HttpError && err.code === "body_too_large") throw tooLarge();
    throw err;
  }
  const type = req.headers.get("content-type") ?? "";
  if (bytes.length === 0 || !type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    return new URLSearchParams();
  }
  return new URLSearchParams(new TextDecoder().decode(bytes));
}

function tooLarge(): OAuthError {
  return new OAuthError(413, "invalid_request", `request body exceeds ${FORM_LIMIT_BYTES} bytes`);
}
