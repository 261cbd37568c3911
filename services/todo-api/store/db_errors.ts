/**
 * Database failures a client cannot cause: the server is down, unreachable, restarting, out of
 * connections, or too slow. They answer 503 with `Retry-After` (a 500 would call our own code
 * broken), and their descriptions never carry the database host, port or user, because
 * readiness answers unauthenticated callers.
 * @module
 */
import { HttpError } from "@svc/shared/problem";

/** Client-side failure codes (Node's socket errors and postgres.js' own). */
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
]);

/** SQLSTATEs of a server that cannot serve now (shutdown, startup, overload, timeout). */
const UNAVAILABLE_STATES: Record<string, string> = {
  "57P01": "the database server is shutting down",
  "57P02": "the database server crashed",
  "57P03": "the database server is starting up",
  "53300": "the database server has no free connection",
  "57014": "the query timed out",
};

/** Our own codes for a datastore that `serve` is still opening, or failed to open. */
const OPENING_STATES: Record<string, string> = {
  DATASTORE_OPENING: "the datastore is still opening",
  DATASTORE_FAILED: "the datastore could not be opened",
};

/**
 * Why the database cannot serve, in words safe to show anyone; `undefined` when `err` is not an
 * availability failure (a bug or a constraint violation stays what it is).
 *
 * @example Usage
 * ```ts
 * import { unavailableReason } from "./db_errors.ts";
 * unavailableReason({ code: "ECONNREFUSED", message: "connect ECONNREFUSED 10.0.0.5:5432" });
 * // "cannot connect to the database server (ECONNREFUSED)"
 * ```
 */
export function unavailableReason(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return undefined;
  if (CONNECTION_CODES.has(code)) return `cannot connect to the database server (${code})`;
  if (code.startsWith("08")) return `the database connection failed (SQLSTATE ${code})`;
  return UNAVAILABLE_STATES[code] ?? OPENING_STATES[code];
}

/** A 503 problem with `Retry-After` for an availability failure, else `undefined`. */
export function databaseUnavailable(err: unknown): HttpError | undefined {
  const reason = unavailableReason(err);
  if (reason === undefined) return undefined;
  return new HttpError(503, "database_unavailable", `${reason}; retry later`, {
    headers: { "retry-after": "2" },
    cause: err,
  });
}

/** Runs a readiness check, replacing an availability failure's text with its safe reason. */
export async function withSafeReason(check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (err) {
    throw new Error(unavailableReason(err) ?? "the database query failed");
  }
}
