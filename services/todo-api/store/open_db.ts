import type { Db } from "./db.ts";
import { databaseUrlProblem } from "./database_url.ts";

/** Where the data lives, from the settings. */
export interface DbConfig {
  /** `postgres://…` or `postgresql://…`; empty selects PGlite in `dataDir`. */
  databaseUrl: string;
  /** PGlite data directory (or `memory://`). */
  dataDir: string;
  /** Pool size for the Postgres server. */
  poolSize?: number;
  /** PGlite: fsync each commit before acknowledging it. @default {true} */
  pgliteSync?: boolean;
}

/**
 * Opens the configured backend: a Postgres server when a URL is set, else PGlite. Each backend's
 * client is loaded only when chosen: a process on Postgres never loads PGlite (megabytes of
 * module and wasm), one on PGlite never loads the Postgres client.
 */
export async function openDb(config: DbConfig): Promise<Db> {
  const url = config.databaseUrl.trim();
  if (url === "") {
    const { openPgliteDb } = await import("./pglite_db.ts");
    return await openPgliteDb({
      dataDir: config.dataDir,
      durable: config.pgliteSync ?? true,
    });
  }
  const problem = databaseUrlProblem(url);
  if (problem) throw new Error(`Cannot open datastore: ${problem}`);
  const { openPostgresDb } = await import("./postgres_db.ts");
  try {
    return openPostgresDb(url, { max: config.poolSize });
  } catch (err) {
    // Defaults the client reads (the OS user name, PG* variables) need their grant; say which,
    // not "cannot be parsed", which sent operators to a URL that was fine.
    if (err instanceof Deno.errors.NotCapable) {
      throw new Error(
        `Cannot open datastore: the Postgres client needs a permission to default a setting ` +
          `the URL leaves out (${err.message.split(",")[0]}): put the user in ` +
          `TODOAPI_DATABASE_URL, set PGUSER, or grant --allow-sys=uid,gid,userInfo (the OS user)`,
      );
    }
    // The client's own parse errors quote the URL, password included.
    throw new Error("Cannot open datastore: the database URL cannot be parsed");
  }
}
