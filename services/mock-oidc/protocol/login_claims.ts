/**
 * The optional `claims` JSON of the login and device pages.
 *
 * @module
 */

/** Parse a JSON object; anything else (or invalid JSON) is ignored, as upstream does. */
export function parseLoginClaims(text: string | null): Record<string, unknown> | undefined {
  if (!text || !text.trim()) return undefined;
  try {
    const value = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
