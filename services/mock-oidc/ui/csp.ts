/**
 * The Content-Security-Policy of mock-oidc's tool pages: nothing loads from anywhere, inline
 * styles and scripts run only when their sha256 is listed, forms post only to this origin, no
 * framing, no `<base>`. Stricter than the login page's (which allows any inline code).
 *
 * @module
 */

// The kit's SHA-256, not node:crypto's: loading Node's crypto module costs start-up time.
import { encodeBase64 } from "@svc/shared/base64";
import { sha256 } from "@svc/shared/sha256";

/** What a page may do beyond showing itself. */
export interface CspOptions {
  /** Inline `<style>` contents, allowed by hash. @default [] */
  styles?: readonly string[];
  /** Inline `<script>` contents, allowed by hash; none means no script runs. @default [] */
  scripts?: readonly string[];
  /** The page's scripts call its own origin (`connect-src 'self'`). @default false */
  connect?: boolean;
}

/**
 * A CSP source expression for an inline element's exact text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(hashSource(""), "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='");
 * ```
 */
export function hashSource(text: string): string {
  return `'sha256-${encodeBase64(sha256(text))}'`;
}

/**
 * The policy header value for a page with these inline styles and scripts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const csp = contentSecurityPolicy({ styles: ["p{}"] });
 * assert.match(csp, /^default-src 'none'; style-src 'sha256-[^']+'; /);
 * assert.doesNotMatch(csp, /unsafe|script-src/);
 * ```
 */
export function contentSecurityPolicy(options: CspOptions = {}): string {
  const directives = ["default-src 'none'"];
  const styles = options.styles ?? [];
  const scripts = options.scripts ?? [];
  if (styles.length) directives.push(`style-src ${styles.map(hashSource).join(" ")}`);
  if (scripts.length) directives.push(`script-src ${scripts.map(hashSource).join(" ")}`);
  if (options.connect) directives.push("connect-src 'self'");
  directives.push("form-action 'self'", "base-uri 'none'", "frame-ancestors 'none'");
  return directives.join("; ");
}
