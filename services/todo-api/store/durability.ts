/**
 * Whether an acknowledged write survives a power loss, as the start-up log line reports it.
 * @module
 */
import type { Db } from "./db.ts";

/** What the start-up line says about durability. */
export interface Durability {
  /** An acknowledged write has reached the disk (false when unknown). */
  durable: boolean;
  /** Why, in words an operator can act on. */
  detail: string;
}

/**
 * Reports durability: PGlite is durable when `pgliteSync` is on and it has a data directory;
 * a Postgres server is when its own `fsync` is on and `synchronous_commit` is not `off`.
 */
export async function describeDurability(db: Db, pgliteSync: boolean): Promise<Durability> {
  if (db.kind === "pglite") {
    return pgliteSync
      ? { durable: true, detail: "PGlite flushes each commit to disk (--pglite-sync=true)" }
      : {
        durable: false,
        detail: "--pglite-sync=false: a power loss or OS crash can drop acknowledged writes; " +
          "use --pglite-sync=true or a Postgres server (--database-url) for durable use",
      };
  }
  try {
    const [fsync] = await db.query<{ fsync: string }>("show fsync");
    const [sync] = await db.query<{ synchronous_commit: string }>("show synchronous_commit");
    const durable = fsync.fsync === "on" && sync.synchronous_commit !== "off";
    return {
      durable,
      detail: `Postgres server: fsync=${fsync.fsync}, ` +
        `synchronous_commit=${sync.synchronous_commit}`,
    };
  } catch {
    return { durable: false, detail: "Postgres server: unknown (cannot read its settings)" };
  }
}
