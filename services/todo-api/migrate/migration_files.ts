/**
 * Migration files: `NNNNNN_name.up.sql` and `NNNNNN_name.down.sql` (golang-migrate naming),
 * paired and ordered by version.
 * @module
 */
import { sha256Hex } from "@svc/shared/sha256";
import { MIGRATION_FILES } from "../migrations/mod.ts";

/** One numbered migration with both directions. */
export interface Migration {
  /** The number in the file name (`000001`). */
  version: number;
  /** The rest of the file name (`create_todos`). */
  name: string;
  /** SQL applying it. */
  up: string;
  /** SQL reverting it. */
  down: string;
  /** SHA-256 hex of the up script, recorded when applied so edited files are noticed. */
  checksum: string;
}

/** The file-name pattern; other names are ignored. */
export const MIGRATION_FILE: RegExp = /^(\d+)_([a-z0-9_]+)\.(up|down)\.sql$/;

/**
 * Pairs files (name → SQL) into migrations ordered by version; throws on a missing half or two
 * names for one version. Defaults to the files shipped with the service.
 */
export function loadMigrations(
  files: Readonly<Record<string, string>> = MIGRATION_FILES,
): Migration[] {
  const halves = new Map<number, { name: string; up?: string; down?: string }>();
  for (const [file, text] of Object.entries(files)) {
    const match = MIGRATION_FILE.exec(file);
    if (!match) continue;
    const version = Number(match[1]);
    const half = halves.get(version) ?? { name: match[2] };
    if (half.name !== match[2]) {
      throw new Error(`Cannot load migrations: version ${version} has two names`);
    }
    if (match[3] === "up") half.up = text;
    else half.down = text;
    halves.set(version, half);
  }
  const migrations: Migration[] = [];
  for (const [version, half] of halves) {
    if (half.up === undefined || half.down === undefined) {
      throw new Error(`Cannot load migrations: version ${version} lacks its up or down file`);
    }
    migrations.push({
      version,
      name: half.name,
      up: half.up,
      down: half.down,
      checksum: sha256Hex(half.up),
    });
  }
  return migrations.sort((a, b) => a.version - b.version);
}
