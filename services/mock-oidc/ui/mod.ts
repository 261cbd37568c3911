/**
 * Building blocks of mock-oidc's tool pages (the debugger and the control-plane console):
 * escaping templates, a strict hash-based CSP, one embedded stylesheet, the page response.
 *
 * @module
 */

export { contentSecurityPolicy, type CspOptions, hashSource } from "./csp.ts";
export { escapeHtml, html, SafeHtml, trustedHtml } from "./html.ts";
export { pageHtml, type PageOptions, pageResponse } from "./page.ts";
export { STYLESHEET } from "./stylesheet.ts";
