/**
 * The control-plane console's row: `GET /_mock/ui`, one page with its script and stylesheet
 * inlined and allowed by hash (the tool pages' strict CSP, plus `connect-src 'self'` for its
 * calls). The page holds no data, so it is served without the control token (a browser cannot
 * send one while navigating); every call the page makes is gated as the API is.
 * @module
 */
import type { Route } from "@svc/shared/http";
import { pageResponse } from "../ui/mod.ts";
import { CONSOLE_BODY } from "./console_page.ts";
import { CONSOLE_SCRIPT } from "./console_script.ts";
import { CONSOLE_STYLE } from "./console_style.ts";

/** Path of the console page. */
export const CONSOLE_PATH = "/_mock/ui";

/** Whether the request is a `GET`/`HEAD` of the console page, the one ungated `/_mock` path. */
export function isConsolePage(method: string, path: string): boolean {
  return (method === "GET" || method === "HEAD") && path === CONSOLE_PATH;
}

/** The console page as a response. */
function consolePage(req: Request): Response {
  const res = pageResponse({
    title: "mock-oidc control plane",
    body: CONSOLE_BODY,
    scripts: [CONSOLE_SCRIPT],
    styles: [CONSOLE_STYLE],
    connect: true,
  });
  return req.method === "HEAD" ? new Response(null, res) : res;
}

/** The console's row of the control route table. */
export function consoleRoutes(): Route[] {
  return [{
    method: ["GET", "HEAD"],
    pattern: CONSOLE_PATH,
    handler: (req: Request) => consolePage(req),
    openapi: {
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
    },
  }];
}
