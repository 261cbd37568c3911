/**
 * The control-plane console's rows: `GET /_mock/ui` (the page) and its embedded stylesheet and
 * script. The page and assets hold no data, so they are served without the control token (a
 * browser cannot send one while navigating); every call the page makes is gated as the API is.
 * @module
 */
import type { Route } from "@svc/shared/http";
import { CONSOLE_PAGE } from "./console_page.ts";
import { CONSOLE_SCRIPT } from "./console_script.ts";
import { CONSOLE_STYLE } from "./console_style.ts";

/** Path of the console page. */
export const CONSOLE_PATH = "/_mock/ui";

/**
 * Only the console's own script and stylesheet run or apply; it talks to its own origin only,
 * submits no form natively and cannot be framed.
 */
export const CONSOLE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; " +
  "connect-src 'self'; img-src 'self'; form-action 'none'; base-uri 'none'; " +
  "frame-ancestors 'none'";

const ASSETS: Record<string, { type: string; body: string }> = {
  [CONSOLE_PATH]: { type: "text/html; charset=utf-8", body: CONSOLE_PAGE },
  [`${CONSOLE_PATH}/console.js`]: { type: "text/javascript; charset=utf-8", body: CONSOLE_SCRIPT },
  [`${CONSOLE_PATH}/console.css`]: { type: "text/css; charset=utf-8", body: CONSOLE_STYLE },
};

/** Whether `GET`/`HEAD` of `path` is one of the console's static, data-free assets. */
export function isConsoleAsset(method: string, path: string): boolean {
  return (method === "GET" || method === "HEAD") && Object.hasOwn(ASSETS, path);
}

function serveAsset(req: Request, path: string): Response {
  const asset = ASSETS[path];
  return new Response(req.method === "HEAD" ? null : asset.body, {
    headers: {
      "content-type": asset.type,
      "content-security-policy": CONSOLE_CSP,
      "x-content-type-options": "nosniff",
      "x-frame-options": "DENY",
      "referrer-policy": "no-referrer",
      "cache-control": "no-store",
    },
  });
}

/** The console's rows of the control route table (documented as one operation, the page). */
export function consoleRoutes(): Route[] {
  return Object.keys(ASSETS).map((path) => ({
    method: ["GET", "HEAD"],
    pattern: path,
    handler: (req: Request) => serveAsset(req, path),
    openapi: path === CONSOLE_PATH
      ? {
        operationId: "console",
        summary: "The control-plane console (HTML; its calls need the control token when set)",
        tags: ["control"],
        security: [],
        responses: {
          "200": {
            description: "The page",
            content: { "text/html": { schema: { type: "string" } } },
          },
        },
      }
      : undefined,
  }));
}
