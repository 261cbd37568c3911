/**
 * Which redirect targets the mock follows. Any absolute URI is allowed for a client that did not
 * register (a registered one is held to its `redirect_uris`: `client_registry.ts`), including
 * custom schemes of native apps, except script-bearing schemes that would run in the mock's own
 * origin from the form_post page.
 *
 * @module
 */

const SCRIPT_SCHEMES = new Set(["javascript:", "data:", "vbscript:", "blob:"]);

/** True when `value` is an absolute URI the mock may redirect or post to. */
export function isUsableRedirect(value: string | null): value is string {
  if (!value || !URL.canParse(value)) return false;
  return !SCRIPT_SCHEMES.has(new URL(value).protocol);
}
