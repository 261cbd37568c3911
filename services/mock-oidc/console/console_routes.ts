/**
 * Where the control-plane console is: `GET /_mock/ui` (its row is in `routes.ts`), one page with
 * its script and stylesheet inlined and allowed by hash (console_page_response.ts). The page holds
 * no data, so it is served without the control token (a browser cannot send one while
 * navigating); every call the page makes is gated as the API is.
 * @module
 */

/** Path of the console page. */
export const CONSOLE_PATH = "/_mock/ui";

/** Whether the request is a `GET`/`HEAD` of the console page, the one ungated `/_mock` path. */
export function isConsolePage(method: string, path: string): boolean {
  return (method === "GET" || method === "HEAD") && path === CONSOLE_PATH;
}
