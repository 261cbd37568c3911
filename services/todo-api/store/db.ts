/**
 * The one datastore interface. Both backends (a Postgres server through porsager `postgres`,
 * embedded PGlite) implement it and receive the same SQL with `$1`-style parameters.
 * @module
 */

/** A result row; columns are aliased to camelCase in the SQL. */
export type Row = Record<string, unknown>;

/** Something that runs SQL: the pool, or one reserved session. */
export interface Queryable {
  /** One statement with `$n` parameters; returns the rows. */
  query<T extends Row = Row>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /** A script of several statements, no parameters (migration files). */
  exec(script: string): Promise<void>;
}

/** The datastore: a pool (or PGlite's single connection) plus lifecycle. */
export interface Db extends Queryable {
  /** Which backend this is. */
  readonly kind: "postgres" | "pglite";
  /**
   * Runs `fn` on one dedicated session. Session-scoped state (advisory locks, BEGIN/COMMIT
   * issued as statements) needs this: on a pool, consecutive queries may use other connections.
   */
  session<T>(fn: (session: Queryable) => Promise<T>): Promise<T>;
  /**
   * Postgres `LISTEN` on a dedicated connection that reconnects by itself; `onNotify` runs for
   * every `NOTIFY` on `channel`, from any process on the database. Absent on PGlite, which one
   * process holds.
   */
  listen?(channel: string, onNotify: (payload: string) => void): Promise<void>;
  /** Cheap connectivity check for readiness. */
  ping(): Promise<void>;
  /** Waits for in-flight queries, then releases connections (and the PGlite lock file). */
  close(): Promise<void>;
}
