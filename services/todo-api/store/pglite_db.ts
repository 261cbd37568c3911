import { PGlite } from "@electric-sql/pglite";
import { dirname } from "node:path";
import type { Db, Queryable, Row } from "./db.ts";
import { acquireDataDirLock, type DataDirLock } from "./data_dir_lock.ts";
import { DURABLE_START_PARAMS, DurableNodeFS } from "./durable_fs.ts";

/** Options of {@linkcode openPgliteDb}. */
export interface PgliteDbOptions {
  /** A data directory, or `memory://` for a throwaway in-memory database. */
  dataDir: string;
  /** Start from a `dumpDataDir()` tarball instead of running initdb (tests use a template). */
  loadDataDir?: Blob;
  /**
   * Flush the WAL to disk before a commit is acknowledged (see durable_fs.ts). Off trades
   * durability against power loss for speed, as PGlite's own default does.
   * @default {true}
   */
  durable?: boolean;
  /** The directory's lock, already taken (`reserveDb`); released on close or a failed open. */
  lock?: DataDirLock;
}

/** PGlite adds a way to snapshot the whole database. */
export interface PgliteDb extends Db {
  /** Serializes the database (tests clone a migrated template: ~0.3 s instead of ~2 s initdb). */
  dump(): Promise<Blob>;
}

/**
 * Opens embedded PGlite. A directory is locked first (see data_dir_lock.ts), so a second process
 * gets a clear error instead of corrupting it. PGlite has one connection: queries serialize.
 */
export async function openPgliteDb(options: PgliteDbOptions): Promise<PgliteDb> {
  const inMemory = options.dataDir.startsWith("memory://");
  let lock = options.lock;
  if (!inMemory && !lock) {
    // PGlite's NodeFS calls mkdir without `recursive`.
    await Deno.mkdir(dirname(options.dataDir), { recursive: true });
    lock = await acquireDataDirLock(options.dataDir);
  }
  let pg: PGlite;
  try {
    const durable = !inMemory && (options.durable ?? true);
    pg = await PGlite.create({
      ...(durable
        ? { fs: new DurableNodeFS(options.dataDir), startParams: [...DURABLE_START_PARAMS] }
        : { dataDir: inMemory ? undefined : options.dataDir }),
      loadDataDir: options.loadDataDir,
    });
  } catch (err) {
    await lock?.release();
    throw err;
  }
  const conn: Queryable = {
    async query<T extends Row>(text: string, params: readonly unknown[] = []): Promise<T[]> {
      const result = await pg.query<T>(text, params as unknown[]);
      return result.rows;
    },
    async exec(script: string): Promise<void> {
      await pg.exec(script);
    },
  };
  let closed = false;
  return {
    kind: "pglite",
    query: conn.query,
    exec: conn.exec,
    // One connection: the whole database is the session. Callers keep sessions short.
    session: (fn) => fn(conn),
    async ping(): Promise<void> {
      await pg.query("select 1");
    },
    dump: () => pg.dumpDataDir("none"),
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      try {
        // close() checkpoints the WAL; skipping it risks a corrupt directory.
        await pg.close();
      } finally {
        await lock?.release();
      }
    },
  };
}
