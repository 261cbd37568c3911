/**
 * The console page as a response: its script and stylesheet inlined and allowed by hash (the tool
 * pages' strict CSP, plus `connect-src 'self'` for its calls). Loaded with the control plane's
 * handlers on the first control request, with the page's text and the browser code it inlines.
 * @module
 */
import { pageResponse } from "../ui/mod.ts";
import { CONSOLE_BODY } from "./console_page.ts";
import { CONSOLE_SCRIPT } from "./console_script.ts";
import { CONSOLE_STYLE } from "./console_style.ts";

/** `GET|HEAD /_mock/ui`: the page (headers only for `HEAD`). */
export function consolePage(req: Request): Response {
  const res = pageResponse({
    title: "mock-oidc control plane",
    body: CONSOLE_BODY,
    scripts: [CONSOLE_SCRIPT],
    styles: [CONSOLE_STYLE],
    connect: true,
  });
  return req.method === "HEAD" ? new Response(null, res) : res;
}
