/**
 * The control-plane console's row: `GET /_mock/ui`, one page with its script and stylesheet
 * inlined and allowed by hash (console_page_response.ts). The page holds no data, so it is served
 * without the control token (a browser cannot send one while navigating); every call the page
 * makes is gated as the API is.
 * @module
 */
import type { Route } from "@svc/shared/http";

/** Path of the console page. */
export const CONSOLE_PATH = "/_mock/ui";

/** Whether the request is a `GET`/`HEAD` of the console page, the one ungated `/_mock` path. */
export function isConsolePage(method: string, path: string): boolean {
  return (method === "GET" || method === "HEAD") && path === CONSOLE_PATH;
}

/**
 * The console's row of the control route table; `page` answers it (console_page_response.ts,
 * loaded on first use).
 */
export function consoleRoutes(page: (req: Request) => Promise<Response>): Route[] {
  return [{
    method: ["GET", "HEAD"],
    pattern: CONSOLE_PATH,
    handler: (req: Request) => page(req),
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
