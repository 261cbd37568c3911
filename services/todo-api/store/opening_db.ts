/**
 * The datastore while it opens. `serve` listens first and opens the database behind the listener
 * (PGlite's start takes seconds; the Postgres client's modules alone take a few hundred ms), so
 * liveness answers at once. Until the open settles, every query WAITS for it (a request is bounded
 * by the request timeout, not failed); only `ping`, which readiness runs, answers at once: the
 * datastore is still opening. Should the open fail, queries fail with `DATASTORE_FAILED` (503)
 * while `serve` ends the process with the open's own error.
 * @module
 */
import type { Db, Queryable, Row } from "./db.ts";

/** A {@linkcode Db} that is being opened. */
export interface OpeningDb extends Db {
  /**
   * `undefined` once open (then every call goes straight to the datastore); until then the error
   * readiness reports: {@linkcode DatastoreOpeningError}, or {@linkcode DatastoreFailedError}.
   */
  notOpen(): Error | undefined;
  /** Settles with the open: the datastore, or the open's error. */
  readonly opened: Promise<Db>;
}

/** Thrown by `ping` while the datastore opens (readiness: "the datastore is still opening"). */
export class DatastoreOpeningError extends Error {
  /** Stable code; `db_errors.ts` words it for readiness. */
  readonly code = "DATASTORE_OPENING";
  /** Creates the error. */
  constructor() {
    super("Cannot ping the datastore: it is still opening");
    this.name = "DatastoreOpeningError";
  }
}

/** What queries waiting on a failed open get: a 503, the cause kept for the log. */
export class DatastoreFailedError extends Error {
  /** Stable code; `db_errors.ts` turns it into a 503. */
  readonly code = "DATASTORE_FAILED";
  /** Creates the error for the open's `cause`. */
  constructor(cause: unknown) {
    super("Cannot query the datastore: it could not be opened", { cause });
    this.name = "DatastoreFailedError";
  }
}

/**
 * Wraps the datastore `opened` will give: `kind` is known beforehand (from the settings).
 * `close` waits for the open to settle, then closes what it opened (a PGlite start cannot be
 * abandoned half-way: it holds the data directory).
 */
export function openingDb(kind: Db["kind"], opened: Promise<Db>): OpeningDb {
  let db: Db | undefined;
  let failed: DatastoreFailedError | undefined;
  const settled = opened.then(
    (open) => (db = open),
    (err) => Promise.reject(failed = new DatastoreFailedError(err)),
  );
  settled.catch(() => {}); // observed by every waiting call and by the caller through `opened`
  const wait = (): Promise<Db> => db ? Promise.resolve(db) : settled;
  const conn: Queryable = {
    query<T extends Row>(text: string, params?: readonly unknown[]): Promise<T[]> {
      return db ? db.query<T>(text, params) : settled.then((d) => d.query<T>(text, params));
    },
    exec: async (script) => await (await wait()).exec(script),
  };
  return {
    kind,
    notOpen: () => db ? undefined : failed ?? new DatastoreOpeningError(),
    opened,
    query: conn.query,
    exec: conn.exec,
    session: async (fn) => await (await wait()).session(fn),
    ...(kind === "postgres"
      ? {
        async listen(channel: string, onNotify: (payload: string) => void): Promise<void> {
          const open = await wait();
          await open.listen?.(channel, onNotify);
        },
      }
      : {}),
    async ping(): Promise<void> {
      if (!db) throw failed ?? new DatastoreOpeningError();
      await db.ping();
    },
    async close(): Promise<void> {
      const open = await opened.catch(() => undefined);
      await open?.close();
    },
  };
}

/**
 * Why `db` cannot be queried without waiting: the error of an {@linkcode OpeningDb} that is not
 * open yet; `undefined` for an open one, and for any other datastore.
 */
export function notOpen(db: Db): Error | undefined {
  return "notOpen" in db ? (db as OpeningDb).notOpen() : undefined;
}
