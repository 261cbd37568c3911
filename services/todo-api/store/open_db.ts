/**
 * Opening the configured datastore, in two steps: {@linkcode reserveDb} does what is quick and
 * must fail before `serve` listens (the URL's shape, PGlite's directory lock); its `open` loads the
 * client and connects, which `serve` does behind a listener that is already answering.
 * @module
 */
import type { Db } from "./db.ts";
import { databaseUrlProblem } from "./database_url.ts";
import {
  acquireDataDirLock,
  type DataDirLock,
  DataDirLockedError,
  lockPathFor,
} from "./data_dir_lock.ts";
import { lockFileError, prepareDataDir } from "./data_dir_check.ts";
import { lazyModuleAt } from "@svc/shared/lazy-module";

// The two clients by URL (shared/lifecycle/lazy_module.ts): a literal `import("./pglite_db.ts")`
// would have `deno run` resolve both npm packages behind them before the first answer, although
// the datastore opens after it and only one of them is ever loaded. In deploy/services.ts's
// include.
const pgliteDb = lazyModuleAt<typeof import("./pglite_db.ts")>(
  import.meta.resolve("./pglite_db.ts"),
);
const postgresDb = lazyModuleAt<typeof import("./postgres_db.ts")>(
  import.meta.resolve("./postgres_db.ts"),
);

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

/** A datastore reserved by {@linkcode reserveDb}: which backend, and how to open it. */
export interface ReservedDb {
  /** The backend `open` opens. */
  readonly kind: Db["kind"];
  /** Loads the backend's client and opens it; call once (on failure the reservation is gone). */
  open(): Promise<Db>;
  /** Gives the reservation back without opening (PGlite: releases the directory lock). */
  release(): Promise<void>;
  /** PGlite: records in the directory's lock file the URL the server answers on. */
  announce(url: string): Promise<void>;
}

/**
 * The quick part of opening: checks the URL, and on PGlite the data directory (a file there or a
 * path it may not write: `SettingsError`) and takes its lock, so a directory in use fails here
 * (`DataDirLockedError`) without loading PGlite.
 */
export async function reserveDb(config: DbConfig): Promise<ReservedDb> {
  const url = config.databaseUrl.trim();
  if (url === "") {
    const inMemory = config.dataDir.startsWith("memory://");
    let lock: DataDirLock | undefined;
    if (!inMemory) {
      // A file or a path without write access fails here, in one line, before PGlite loads.
      await prepareDataDir(config.dataDir);
      lock = await acquireDataDirLock(config.dataDir).catch((err) => {
        if (err instanceof DataDirLockedError) throw err;
        throw lockFileError(config.dataDir, lockPathFor(config.dataDir), err);
      });
    }
    return {
      kind: "pglite",
      async open() {
        const { openPgliteDb } = await pgliteDb().catch(async (err) => {
          await lock?.release();
          throw err;
        });
        return await openPgliteDb({
          dataDir: config.dataDir,
          durable: config.pgliteSync ?? true,
          lock,
        });
      },
      release: async () => await lock?.release(),
      announce: async (url) => await lock?.announce(url),
    };
  }
  const problem = databaseUrlProblem(url);
  if (problem) throw new Error(`Cannot open datastore: ${problem}`);
  return {
    kind: "postgres",
    open: () => openPostgres(url, config.poolSize),
    release: () => Promise.resolve(),
    announce: () => Promise.resolve(),
  };
}

/**
 * Opens the configured backend: a Postgres server when a URL is set, else PGlite. Each backend's
 * client is loaded only when chosen: a process on Postgres never loads PGlite (megabytes of
 * module and wasm), one on PGlite never loads the Postgres client.
 */
export async function openDb(config: DbConfig): Promise<Db> {
  return await (await reserveDb(config)).open();
}

async function openPostgres(url: string, poolSize: number | undefined): Promise<Db> {
  const { openPostgresDb } = await postgresDb();
  try {
    return openPostgresDb(url, { max: poolSize });
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
