/** Where commands write: the kit's entry-point I/O, injected so tests capture output. @module */
import type { MainIo } from "@svc/shared/main";

/** Results (keys, tables) go to `out`; notices and errors to `err`. */
export type CliIo = MainIo;

import { unavailableReason } from "../store/db_errors.ts";
import { thrownMessage } from "../thrown.ts";

/** Where the operator fixes the server, user, password or database name. */
const URL_SETTING = "--database-url / TODOAPI_DATABASE_URL";

/**
 * Says what happened to a database command and what to change: no schema yet, no connection,
 * credentials refused, database missing. Other errors pass through.
 *
 * @example Usage
 * ```ts
 * import { explainDbError } from "./io.ts";
 * explainDbError({ code: "ECONNREFUSED" });
 * // "cannot connect to the database server (ECONNREFUSED): check the host and port of …"
 * ```
 */
export function explainDbError(err: unknown): string {
  const code = (err as { code?: string })?.code;
  const said = thrownMessage(err);
  if (code === "42P01") return "the database has no schema yet: run `migrate up` first";
  if (code === "28P01" || code === "28000") {
    // The server's words name the user (never the password): "password authentication failed
    // for user …", "role … does not exist".
    return `the database server refused the login (${said}): check the user and password of ` +
      `${URL_SETTING} (or PGUSER / PGPASSWORD when the URL has none)`;
  }
  if (code === "3D000") {
    return `the database does not exist (${said}): create it, or change the database name of ` +
      URL_SETTING;
  }
  const unavailable = unavailableReason(err);
  if (unavailable?.startsWith("cannot connect")) {
    return `${unavailable}: check the host and port of ${URL_SETTING}`;
  }
  return unavailable ?? said;
}
