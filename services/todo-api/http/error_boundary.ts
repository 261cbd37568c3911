/**
 * The one place where todo-api's errors become answers (the default stack's `renderError`):
 * errors of the datastore and of the cursor codec are first turned into the HTTP errors they
 * stand for (`httpErrorOf`), then everything thrown is a problem
 * (`application/problem+json`, the kit's `problemOf`: an `HttpError` as it says, anything else a
 * 500 with nothing of its internals, its detail to the log) with Huma's `$schema` and `Link`.
 * @module
 */
import type { Logger } from "@svc/shared/log";
import { HttpError, problemOf } from "@svc/shared/problem";
import { databaseUnavailable } from "../store/db_errors.ts";
import { InvalidCursorError } from "../todos/cursor.ts";
import { schemaJson } from "./schema_link.ts";

/** SQLSTATE 42P01 (undefined table): serving before `migrate up` is a 503, not a 500. */
function unmigrated(err: unknown): HttpError | undefined {
  if ((err as { code?: unknown })?.code !== "42P01") return undefined;
  return new HttpError(
    503,
    "schema_missing",
    "the database schema is not migrated yet; see /readyz",
    { headers: { "retry-after": "5" }, cause: err },
  );
}

/**
 * The HTTP error `err` stands for: a missing schema 503 (`Retry-After: 5`), a datastore that
 * cannot serve 503 (`Retry-After: 2`), a cursor not minted for the caller 400 `invalid cursor`
 * (`location: query.cursor`); any other error as it is.
 */
function httpErrorOf(err: unknown): unknown {
  if (err instanceof HttpError) return err;
  if (err instanceof InvalidCursorError) {
    return new HttpError(400, "invalid_cursor", "invalid cursor", {
      errors: [{ location: "query.cursor", message: "invalid cursor" }],
    });
  }
  return unmigrated(err) ?? databaseUnavailable(err) ?? err;
}

/** The answer to anything thrown: a problem body with `$schema` and `Link`. */
export function errorSchemaJson(
  req: Request,
  err: unknown,
  options: { logger?: Logger },
): Response {
  const { problem, headers } = problemOf(httpErrorOf(err), options);
  return schemaJson(req, "ErrorModel", problem, {
    status: problem.status,
    headers,
    contentType: "application/problem+json",
  });
}
