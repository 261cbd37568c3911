/**
 * Checks a Postgres connection URL without ever quoting it: the URL carries the password.
 * @module
 */

const EXPECTED = "expected postgres://user:password@host[:port]/database, with reserved " +
  "characters of the user and password (such as # / ? @ :) percent-encoded";

/**
 * Why a `TODOAPI_DATABASE_URL` cannot be used, or `undefined` when it can (empty selects PGlite).
 * An unencoded `#` in the password ends the URL early, so a fragment is refused too.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { databaseUrlProblem } from "./database_url.ts";
 * assert.equal(databaseUrlProblem("postgres://u:p%23ss@h/db"), undefined);
 * assert.ok(databaseUrlProblem("postgres://u:Pa#ss@h/db"));
 * ```
 */
export function databaseUrlProblem(value: string): string | undefined {
  if (value.trim() === "") return undefined;
  if (!/^postgres(ql)?:\/\//.test(value.trim())) return EXPECTED;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return EXPECTED;
  }
  if (url.hash !== "" || value.includes("#")) return EXPECTED;
  try {
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
  } catch {
    return EXPECTED;
  }
  return undefined;
}
