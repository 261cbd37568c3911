/**
 * `migrate up | down [N] [--all] | status [--exit-code]`.
 * @module
 */
import type { Settings } from "../settings.ts";
import { loadMigrations } from "../migrate/migration_files.ts";
import { createMigrator, MigrationFailedError } from "../migrate/migrator.ts";
import type { Db } from "../store/db.ts";
import { type CliIo, explainDbError } from "./io.ts";

/** Exit code of `status --exit-code` when migrations are pending. */
const EXIT_PENDING = 3;

const label = (m: { version: number; name: string }) =>
  `${String(m.version).padStart(6, "0")}_${m.name}`;

/** Runs a migrate subcommand on an open database; returns the exit code. */
export async function migrateCommand(
  db: Db,
  args: string[],
  options: { settings: Settings; io: CliIo; files?: Record<string, string> },
): Promise<number> {
  const { settings, io } = options;
  const migrator = createMigrator(db, loadMigrations(options.files), {
    lockTimeoutMs: settings.lockTimeoutMs,
  });
  try {
    switch (args[0]) {
      case "up": {
        // Each line is printed as its migration commits, so a failure later still shows them.
        const applied = await migrator.up({ onApplied: (m) => io.out(`applied ${label(m)}`) });
        if (applied.length === 0) io.out("no change");
        return 0;
      }
      case "down": {
        let steps = 1;
        if (settings.all) steps = Infinity;
        else if (args[1] !== undefined) {
          if (!/^[1-9]\d*$/.test(args[1])) {
            io.err("migrate down: N must be a positive integer");
            return 2;
          }
          steps = Number(args[1]);
        }
        const reverted = await migrator.down(steps);
        if (reverted.length === 0) io.out("no change");
        for (const m of reverted) io.out(`reverted ${label(m)}`);
        return 0;
      }
      case "status": {
        const lines = await migrator.status();
        const mark = { applied: "[X]", pending: "[ ]", modified: "[!]", unknown: "[?]" };
        for (const l of lines) {
          const note = l.state === "modified"
            ? "  (file changed since applied)"
            : l.state === "unknown"
            ? "  (recorded, but not in this build)"
            : "";
          io.out(`${mark[l.state]} ${label(l)}${l.appliedAt ? `  ${l.appliedAt}` : ""}${note}`);
        }
        const pending = lines.filter((l) => l.state === "pending").length;
        io.out("");
        io.out(`Applied: ${lines.length - pending}`);
        io.out(`Pending: ${pending}`);
        return settings.exitCode && pending > 0 ? EXIT_PENDING : 0;
      }
      default:
        io.err("usage: migrate up | down [N] [--all] | status [--exit-code]");
        return 2;
    }
  } catch (err) {
    if (err instanceof MigrationFailedError) {
      io.err(
        `migrate ${args[0]}: ${label(err.migration)} failed and was rolled back ` +
          `(${err.applied.length} applied before it): ${explainDbError(err.cause)}`,
      );
      return 1;
    }
    io.err(`migrate ${args[0]}: ${explainDbError(err)}`);
    return 1;
  }
}
