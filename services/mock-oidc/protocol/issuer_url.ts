/**
 * The issuer URL as the caller sees it: scheme from `X-Forwarded-Proto`, host from
 * `X-Forwarded-Host` (upstream ignores it) or `Host`, port from `X-Forwarded-Port`.
 * Discovery, `iss` and token verification all use it, so it is computed per request, unless
 * `--public-base-url` fixes it (`issuers.ts`).
 *
 * @module
 */

import { issuerPath } from "./issuer_id.ts";

const HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~-]+)(:\d{1,5})?$/;

/**
 * Issuer URL of `issuerId` for this request.
 *
 * @example
 * ```ts
 * issuerUrlOf(new Request("http://127.0.0.1:8080/x", { headers: { "x-forwarded-proto": "https",
 *   "x-forwarded-host": "idp.example" } }), "default"); // "https://idp.example/default"
 * ```
 */
export function issuerUrlOf(req: Request, issuerId: string): string {
  return `${originOf(req)}/${issuerPath(issuerId)}`;
}

/** Scheme and authority of the request as the client addressed it. */
export function originOf(req: Request): string {
  const url = new URL(req.url);
  const forwardedProto = first(req.headers.get("x-forwarded-proto"))?.toLowerCase();
  const proto = forwardedProto === "http" || forwardedProto === "https"
    ? forwardedProto
    : url.protocol.slice(0, -1);
  const candidates = [first(req.headers.get("x-forwarded-host")), req.headers.get("host")];
  const host = candidates.find((h) => h !== undefined && h !== null && HOST.test(h)) ?? url.host;
  const port = first(req.headers.get("x-forwarded-port"));
  if (!port || !/^\d{1,5}$/.test(port)) return `${proto}://${host}`;
  const hostname = HOST.exec(host)?.[1] ?? url.hostname;
  const implied = (proto === "https" && port === "443") || (proto === "http" && port === "80");
  return `${proto}://${hostname}${implied ? "" : `:${port}`}`;
}

function first(value: string | null): string | undefined {
  const head = value?.split(",")[0].trim();
  return head ? head : undefined;
}
