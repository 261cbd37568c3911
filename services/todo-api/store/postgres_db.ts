import postgres from "postgres";
import type { Db, Queryable, Row } from "./db.ts";

/** Options of {@linkcode openPostgresDb}. */
export interface PostgresDbOptions {
  /** Pool size. @default 10 */
  max?: number;
  /** Server-side statement timeout in ms, so a stuck query cannot hold a request forever. @default 10000 */
  statementTimeoutMs?: number;
}

type Sql = postgres.Sql;

// prepare: true gives named prepared statements, as the tagged template would. One object for
// every call: postgres.js copies it into each query's own options.
const PREPARED = { prepare: true } as const;

// A plain array, like PGlite's: postgres.js adds count/command/columns to its Result. An indexed
// copy: `Array.from` walks the Result through its iterator, which cost more than the copy itself.
function plainRows<T>(rows: ArrayLike<T>): T[] {
  const out = new Array<T>(rows.length);
  for (let i = 0; i < rows.length; i++) out[i] = rows[i];
  return out;
}

function queryable(sql: Sql | postgres.ReservedSql): Queryable {
  return {
    // Not async: the driver's own promise, mapped once (no extra frame per query).
    query<T extends Row>(text: string, params: readonly unknown[] = []): Promise<T[]> {
      return sql.unsafe(text, params as postgres.ParameterOrJSON<never>[], PREPARED)
        .then(plainRows) as unknown as Promise<T[]>;
    },
    async exec(script: string): Promise<void> {
      // Without parameters `unsafe` uses the simple protocol, which accepts several statements.
      await sql.unsafe(script);
    },
  };
}

/** Opens a pool on a Postgres server. Nothing connects until the first query. */
export function openPostgresDb(url: string, options: PostgresDbOptions = {}): Db {
  const sql = postgres(url, {
    max: options.max ?? 10,
    // No `idle_timeout`: postgres.js arms a timer each time a connection goes idle and clears it
    // each time it gets a query: a setTimeout/clearTimeout pair per query (issue 42). Idle
    // connections stay open, as a fixed-size pool's do (HikariCP's default), and each is still
    // closed and reopened after 30–60 min (postgres.js's `max_lifetime`, one timer per connection).
    connect_timeout: 10,
    onnotice: () => {},
    connection: {
      application_name: "todo-api",
      statement_timeout: options.statementTimeoutMs ?? 10_000,
      // Our few statements are all index seeks whose best plan does not depend on the values;
      // without this, a keyset page query keeps being re-planned (custom plans) on every call,
      // which costs more than running it.
      plan_cache_mode: "force_generic_plan",
    },
  });
  const pool = queryable(sql);
  return {
    kind: "postgres",
    query: pool.query,
    exec: pool.exec,
    async session<T>(fn: (session: Queryable) => Promise<T>): Promise<T> {
      const reserved = await sql.reserve();
      try {
        return await fn(queryable(reserved));
      } finally {
        reserved.release();
      }
    },
    async listen(channel: string, onNotify: (payload: string) => void): Promise<void> {
      await sql.listen(channel, onNotify);
    },
    async ping(): Promise<void> {
      await sql.unsafe("select 1");
    },
    async close(): Promise<void> {
      await sql.end({ timeout: 5 });
    },
  };
}
