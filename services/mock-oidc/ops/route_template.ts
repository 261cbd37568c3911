/**
 * The route template of a request path, used as the metrics `route` label and the span name,
 * so that issuer ids never explode label cardinality.
 * @module
 */
import { controlRouteOf } from "../control/control_plane.ts";
import { ENDPOINTS } from "../control/request_log.ts";

const OPERATIONAL = new Set([
  "/isalive",
  "/healthz",
  "/readyz",
  "/metrics",
  "/docs",
  "/openapi.json",
  "/openapi.yaml",
  "/favicon.ico",
]);

const ISSUER_ENDPOINTS = new Set<string>([
  ...ENDPOINTS,
  "device_authorization",
  "device",
  ".well-known/openid-configuration",
  ".well-known/oauth-authorization-server",
]);

/** `/default/token` → `/{issuer}/token`; unknown paths collapse to `unmatched`. */
export function routeTemplateOf(path: string): string {
  if (OPERATIONAL.has(path)) return path;
  if (path.startsWith("/docs/")) return "/docs/*";
  if (path === "/_mock" || path.startsWith("/_mock/")) return controlRouteOf(path);
  if (path.startsWith("/static/")) return "/static/*";
  if (path.startsWith("/.well-known/oauth-authorization-server/")) {
    return "/.well-known/oauth-authorization-server/{issuer}";
  }
  const rest = path.split("/").slice(2).join("/");
  return ISSUER_ENDPOINTS.has(rest) ? `/{issuer}/${rest}` : "unmatched";
}
