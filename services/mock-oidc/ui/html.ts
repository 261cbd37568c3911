/**
 * HTML built by escaping: the `html` tag escapes every interpolated value unless it is already
 * {@linkcode SafeHtml} (the result of another `html` template or of {@linkcode trustedHtml}).
 * The pages show attacker-controlled text (callback parameters, captured requests), so nothing
 * reaches markup unescaped by accident.
 *
 * @module
 */

/** Markup that is safe to embed as-is. Build it with `html` (or `trustedHtml` for constants). */
export class SafeHtml {
  /** The markup. */
  readonly value: string;

  constructor(value: string) {
    this.value = value;
  }

  toString(): string {
    return this.value;
  }
}

/**
 * Escape text for HTML element content and quoted attribute values.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(escapeHtml(`<a href="x">'&'</a>`),
 *   "&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;");
 * ```
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Markup from a template: strings and numbers are escaped, `SafeHtml` is kept, arrays are
 * joined (each element by the same rules), `null`, `undefined` and `false` render nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const items = ["<b>", "ok"].map((s) => html`<li>${s}</li>`);
 * assert.equal(html`<ul>${items}</ul>`.value, "<ul><li>&#60;b&#62;</li><li>ok</li></ul>");
 * ```
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new SafeHtml(out);
}

/**
 * Mark a constant string as markup (never call it with input from a request).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(html`<p>${trustedHtml("<br>")}</p>`.value, "<p><br></p>");
 * ```
 */
export function trustedHtml(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (value === null || value === undefined || value === false) return "";
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}
