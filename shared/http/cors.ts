import type { Handler } from "./handler.ts";

/** Options of {@linkcode withCors}. */
export interface CorsOptions {
  /** Exact origins allowed. @default {[]} */
  allowedOrigins?: readonly string[];
  /**
   * Further origins allowed, by rule (e.g. any loopback origin); `allowedOrigins` are allowed
   * either way.
   */
  isAllowed?: (origin: string) => boolean;
  /**
   * With an empty `allowedOrigins`, reflect any request Origin. Off by default: together with
   * `credentials` it lets every web page act as the signed-in user, so only a service built for
   * that (a test identity provider) turns it on. @default {false}
   */
  reflectAnyOrigin?: boolean;
  /** `Access-Control-Allow-Methods` on preflight. @default {"POST, GET, OPTIONS"} */
  allowMethods?: string;
  /**
   * `Access-Control-Expose-Headers` on responses to an allowed origin: the response headers a
   * page's script may read beyond the CORS-safelisted ones (e.g. `WWW-Authenticate`).
   */
  exposeHeaders?: string;
  /** Sends `Access-Control-Allow-Credentials: true`. @default {false} */
  credentials?: boolean;
  /** `Access-Control-Max-Age` on preflight, in seconds; omitted when undefined. */
  maxAge?: number;
}

/**
 * CORS that reflects an allowed request Origin (never `*`): by default only the origins listed in
 * `allowedOrigins`, without credentials. A service that must accept any origin with credentials
 * asks for it with `reflectAnyOrigin` and `credentials`. Preflight `OPTIONS` requests get 204 with
 * the allowed methods and the echoed `Access-Control-Request-Headers`.
 *
 * @example Usage
 * ```ts
 * import { localInfo, withCors } from "@svc/shared/http";
 * import assert from "node:assert/strict";
 * const handler = withCors(() => new Response("ok"), { allowedOrigins: ["https://app.test"] });
 * const req = new Request("http://x/", { headers: { Origin: "https://app.test" } });
 * const res = await handler(req, localInfo());
 * assert.equal(res.headers.get("access-control-allow-origin"), "https://app.test");
 * assert.equal(res.headers.get("access-control-allow-credentials"), null);
 * ```
 */
export function withCors(handler: Handler, options: CorsOptions = {}): Handler {
  const {
    allowedOrigins = [],
    reflectAnyOrigin = false,
    allowMethods = "POST, GET, OPTIONS",
    credentials = false,
    maxAge,
    exposeHeaders,
    isAllowed,
  } = options;
  const allowed = new Set(allowedOrigins);
  const any = reflectAnyOrigin && allowed.size === 0 && !isAllowed;
  const permits = (origin: string) =>
    any || allowed.has(origin) || (isAllowed !== undefined && isAllowed(origin));
  function decorate(headers: Headers, origin: string, preflight: boolean) {
    headers.set("Access-Control-Allow-Origin", origin);
    if (credentials) headers.set("Access-Control-Allow-Credentials", "true");
    if (exposeHeaders && !preflight) headers.set("Access-Control-Expose-Headers", exposeHeaders);
    headers.append("Vary", "Origin");
  }
  return async function cors(req, info) {
    const origin = req.headers.get("Origin");
    const preflight = req.method === "OPTIONS" &&
      req.headers.has("Access-Control-Request-Method");
    if (preflight && origin !== null) {
      const headers = new Headers();
      if (permits(origin)) {
        decorate(headers, origin, true);
        headers.set("Access-Control-Allow-Methods", allowMethods);
        const asked = req.headers.get("Access-Control-Request-Headers");
        if (asked) headers.set("Access-Control-Allow-Headers", asked);
        if (maxAge !== undefined) headers.set("Access-Control-Max-Age", String(maxAge));
      }
      return new Response(null, { status: 204, headers });
    }
    const res = await handler(req, info);
    if (origin === null || !permits(origin)) return res;
    try {
      decorate(res.headers, origin, false);
      return res;
    } catch {
      const copy = new Response(res.body, res);
      decorate(copy.headers, origin, false);
      return copy;
    }
  };
}
