/**
 * `migrate up|down|status`. State lives in `schema_migrations`, one row per applied version.
 * Each migration runs in its own transaction together with its bookkeeping row, so a failure
 * leaves no half-applied ("dirty") state. On a Postgres server a session advisory lock keeps two
 * migrators apart; PGlite is single-process anyway (the data-directory lock file).
 * @module
 */
import type { Db, Queryable } from "../store/db.ts";
import type { Migration } from "./migration_files.ts";

/** Advisory lock key: a fixed number private to this service's schema_migrations table. */
const LOCK_KEY = "7309425061180001";

/** One line of `migrate status`. */
export interface MigrationStatus {
  /** The migration's number. */
  version: number;
  /** The migration's name. */
  name: string;
  /** `modified`: its file changed since it was applied; `unknown`: applied, not in this build. */
  state: "applied" | "pending" | "modified" | "unknown";
  /** When it was applied (ISO 8601). */
  appliedAt?: string;
}

/** Options of {@linkcode createMigrator}. */
export interface MigratorOptions {
  /** How long `up`/`down` wait for another migrator's lock. @default 30000 */
  lockTimeoutMs?: number;
  /** Injected for tests. */
  sleep?: (ms: number) => Promise<void>;
}

/** Thrown when another process holds the migration lock past the timeout. */
export class MigrationLockedError extends Error {
  /** Stable code. */
  readonly code = "migration_locked";
  /** Creates the error. */
  constructor() {
    super("Cannot migrate: another migration is running (advisory lock held)");
    this.name = "MigrationLockedError";
  }
}

/** A migration failed (and was rolled back); the ones before it stay applied. */
export class MigrationFailedError extends Error {
  /** Stable code. */
  readonly code = "migration_failed";
  constructor(
    /** The migration whose transaction was rolled back. */
    readonly migration: Migration,
    /** Migrations this run applied (and committed) before the failure. */
    readonly applied: readonly Migration[],
    cause: unknown,
  ) {
    super(
      `Cannot apply migration ${migration.version} (${migration.name}): ${
        cause instanceof Error ? cause.message : String(cause)
      }`,
      { cause },
    );
    this.name = "MigrationFailedError";
  }
}

interface AppliedRow extends Record<string, unknown> {
  version: string;
  name: string;
  checksum: string;
  appliedAt: string;
}

async function applied(q: Queryable): Promise<AppliedRow[]> {
  const [exists] = await q.query<{ present: boolean }>(
    "select to_regclass('schema_migrations') is not null as present",
  );
  if (!exists.present) return [];
  return await q.query<AppliedRow>(
    `select version::text as version, name, checksum,
       to_char(applied_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "appliedAt"
     from schema_migrations order by version`,
  );
}

/** `migrate up|down|status` for one database and one set of files. */
export interface Migrator {
  /** Every known and recorded version with its state; read-only. */
  status(): Promise<MigrationStatus[]>;
  /** Versions not yet applied (what readiness reports). */
  pending(): Promise<Migration[]>;
  /**
   * Applies every pending migration in order; returns the ones applied. `onApplied` hears of
   * each one as it commits, so a caller can report progress that survives a later failure.
   * @throws {MigrationFailedError} naming the migration that failed and those applied before it.
   */
  up(options?: { onApplied?: (m: Migration) => void }): Promise<Migration[]>;
  /** Reverts the latest `steps` applied migrations (default 1; Infinity for all). */
  down(steps?: number): Promise<Migration[]>;
}

/** Builds the migrator for one database and one set of files. */
export function createMigrator(
  db: Db,
  migrations: Migration[],
  options: MigratorOptions = {},
): Migrator {
  const lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));

  async function withLock<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    return await db.session(async (q) => {
      const deadline = Date.now() + lockTimeoutMs;
      for (;;) {
        const [row] = await q.query<{ ok: boolean }>(
          "select pg_try_advisory_lock($1::bigint) as ok",
          [LOCK_KEY],
        );
        if (row.ok) break;
        if (Date.now() >= deadline) throw new MigrationLockedError();
        await sleep(200);
      }
      try {
        await q.exec(`create table if not exists schema_migrations (
          version bigint primary key,
          name text not null,
          checksum text not null,
          applied_at timestamptz not null default now())`);
        return await fn(q);
      } finally {
        await q.query("select pg_advisory_unlock($1::bigint)", [LOCK_KEY]);
      }
    });
  }

  async function inTransaction(q: Queryable, script: string, after: () => Promise<void>) {
    await q.exec("begin");
    try {
      await q.exec(script);
      await after();
      await q.exec("commit");
    } catch (err) {
      await q.exec("rollback");
      throw err;
    }
  }

  return {
    /** Every known and recorded version with its state; read-only. */
    async status(): Promise<MigrationStatus[]> {
      const rows = await db.session((q) => applied(q));
      const byVersion = new Map(rows.map((r) => [Number(r.version), r]));
      const lines: MigrationStatus[] = migrations.map((m) => {
        const row = byVersion.get(m.version);
        byVersion.delete(m.version);
        if (!row) return { version: m.version, name: m.name, state: "pending" };
        const state = row.checksum === m.checksum ? "applied" : "modified";
        return { version: m.version, name: m.name, state, appliedAt: row.appliedAt };
      });
      // Versions recorded by a newer build than this one.
      for (const [version, row] of byVersion) {
        lines.push({ version, name: row.name, state: "unknown", appliedAt: row.appliedAt });
      }
      return lines.sort((a, b) => a.version - b.version);
    },

    /** Versions not yet applied (what readiness reports). */
    async pending(): Promise<Migration[]> {
      const done = new Set((await applied(db)).map((r) => Number(r.version)));
      return migrations.filter((m) => !done.has(m.version));
    },

    async up(upOptions = {}): Promise<Migration[]> {
      return await withLock(async (q) => {
        const done = new Set((await applied(q)).map((r) => Number(r.version)));
        const todo = migrations.filter((m) => !done.has(m.version));
        const committed: Migration[] = [];
        for (const m of todo) {
          try {
            await inTransaction(q, m.up, async () => {
              await q.query(
                "insert into schema_migrations (version, name, checksum) values ($1, $2, $3)",
                [m.version, m.name, m.checksum],
              );
            });
          } catch (err) {
            throw new MigrationFailedError(m, committed, err);
          }
          committed.push(m);
          upOptions.onApplied?.(m);
        }
        return committed;
      });
    },

    /** Reverts the latest `steps` applied migrations (default 1; Infinity for all). */
    async down(steps = 1): Promise<Migration[]> {
      return await withLock(async (q) => {
        const done = (await applied(q)).map((r) => Number(r.version)).reverse();
        const reverted: Migration[] = [];
        for (const version of done.slice(0, steps)) {
          const m = migrations.find((x) => x.version === version);
          if (!m) {
            throw new Error(
              `Cannot migrate down: version ${version} has no down file in this build`,
            );
          }
          await inTransaction(q, m.down, async () => {
            await q.query("delete from schema_migrations where version = $1", [version]);
          });
          reverted.push(m);
        }
        return reverted;
      });
    },
  };
}
