import type { Handler } from "./handler.ts";

/** Options of {@linkcode withCors}. */
export interface CorsOptions {
  /** Exact origins allowed; empty reflects any request Origin. @default {[]} */
  allowedOrigins?: readonly string[];
  /** `Access-Control-Allow-Methods` on preflight. @default {"POST, GET, OPTIONS"} */
  allowMethods?: string;
  /** Sends `Access-Control-Allow-Credentials: true`. @default {true} */
  credentials?: boolean;
  /** `Access-Control-Max-Age` on preflight, in seconds; omitted when undefined. */
  maxAge?: number;
}

/**
 * CORS that reflects the request Origin (never `*`, so credentials work): any Origin when the
 * allowlist is empty, otherwise only listed ones. Preflight `OPTIONS` requests get 204 with the
 * allowed methods and the echoed `Access-Control-Request-Headers`.
 *
 * @example Usage
 * ```ts
 * import { withCors } from "@svc/shared/http";
 * const handler = withCors(() => new Response("ok"), { allowedOrigins: ["https://app.test"] });
 * ```
 */
export function withCors(handler: Handler, options: CorsOptions = {}): Handler {
  const {
    allowedOrigins = [],
    allowMethods = "POST, GET, OPTIONS",
    credentials = true,
    maxAge,
  } = options;
  const allowed = new Set(allowedOrigins);
  const permits = (origin: string) => allowed.size === 0 || allowed.has(origin);
  function decorate(headers: Headers, origin: string) {
    headers.set("Access-Control-Allow-Origin", origin);
    if (credentials) headers.set("Access-Control-Allow-Credentials", "true");
    headers.append("Vary", "Origin");
  }
  return async function cors(req, info) {
    const origin = req.headers.get("Origin");
    const preflight = req.method === "OPTIONS" &&
      req.headers.has("Access-Control-Request-Method");
    if (preflight && origin !== null) {
      const headers = new Headers();
      if (permits(origin)) {
        decorate(headers, origin);
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
      decorate(res.headers, origin);
      return res;
    } catch {
      const copy = new Response(res.body, res);
      decorate(copy.headers, origin);
      return copy;
    }
  };
}
