/**
 * One HTML page of mock-oidc's tools (debugger, control-plane console) as a Response: the shared
 * stylesheet and any inline scripts embedded and allowed by hash in a strict CSP, plus the
 * headers that keep the page out of caches, frames and referrers.
 *
 * @module
 */

import { contentSecurityPolicy } from "./csp.ts";
import { html, type SafeHtml } from "./html.ts";
import { STYLESHEET } from "./stylesheet.ts";

/** A tool page. */
export interface PageOptions {
  /** The document title (escaped). */
  title: string;
  /** What goes inside `<main>`; build it with `html`. */
  body: SafeHtml;
  /** Inline scripts (TypeScript string modules), run in order, allowed by hash. @default [] */
  scripts?: readonly string[];
  /** The scripts call this origin (`connect-src 'self'`). @default false */
  connect?: boolean;
  /** Page-specific stylesheets after the shared one, inlined and allowed by hash. @default [] */
  styles?: readonly string[];
  /** @default 200 */
  status?: number;
  /** Extra headers (e.g. `Set-Cookie`). */
  headers?: HeadersInit;
}

/**
 * The page's markup.
 *
 * @throws {Error} when a script contains `</script` (it could not be inlined safely).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { html } from "./html.ts";
 * const markup = pageHtml({ title: "<T>", body: html`<p>${"<b>"}</p>` });
 * assert.match(markup, /<title>&#60;T&#62;<\/title>/);
 * assert.match(markup, /<main><p>&#60;b&#62;<\/p><\/main>/);
 * ```
 */
export function pageHtml(options: PageOptions): string {
  // A closing tag inside a script would end it early and let the rest parse as markup.
  if (options.scripts?.some((s) => /<\/script/i.test(s))) {
    throw new Error("Cannot embed a script: it contains </script");
  }
  if (options.styles?.some((s) => /<\/style/i.test(s))) {
    throw new Error("Cannot embed a stylesheet: it contains </style");
  }
  const styles = [STYLESHEET, ...options.styles ?? []].map((s) => `<style>${s}</style>`).join("");
  const scripts = (options.scripts ?? []).map((s) => `<script>${s}</script>`).join("");
  return html`
    <!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8">
  ` +
    `<meta name="viewport" content="width=device-width,initial-scale=1">` +
    html`<title>${options.title}</title>`.value + `${styles}</head>` +
    `<body><main>${options.body.value}</main>${scripts}</body></html>`;
}

/**
 * The page as a `text/html` response with its CSP and no-store, nosniff, no-referrer headers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { html } from "./html.ts";
 * const res = pageResponse({ title: "t", body: html`<p>hi</p>`, status: 400 });
 * assert.equal(res.status, 400);
 * assert.match(res.headers.get("content-security-policy")!, /default-src 'none'/);
 * ```
 */
export function pageResponse(options: PageOptions): Response {
  const headers = new Headers(options.headers);
  headers.set("Content-Type", "text/html; charset=utf-8");
  headers.set("Cache-Control", "no-store");
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("Referrer-Policy", "no-referrer");
  headers.set("X-Frame-Options", "DENY");
  headers.set(
    "Content-Security-Policy",
    contentSecurityPolicy({
      styles: [STYLESHEET, ...options.styles ?? []],
      scripts: options.scripts,
      connect: options.connect,
    }),
  );
  return new Response(pageHtml(options), { status: options.status ?? 200, headers });
}
