/**
 * Migration files: `NNNNNN_name.up.sql` and `NNNNNN_name.down.sql` (golang-migrate naming),
 * read from a directory at start.
 * @module
 */

/** One numbered migration with both directions. */
export interface Migration {
  version: number;
  name: string;
  up: string;
  down: string;
  /** SHA-256 hex of the up script, recorded when applied so edited files are noticed. */
  checksum: string;
}

const FILE = /^(\d+)_([a-z0-9_]+)\.(up|down)\.sql$/;

/** The migrations shipped with the service. */
export const MIGRATIONS_DIR: URL = new URL("../migrations/", import.meta.url);

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Reads and pairs the files, ordered by version; throws on a missing half or a duplicate. */
export async function loadMigrations(dir: URL = MIGRATIONS_DIR): Promise<Migration[]> {
  const halves = new Map<number, { name: string; up?: string; down?: string }>();
  for await (const entry of Deno.readDir(dir)) {
    const match = entry.isFile ? FILE.exec(entry.name) : null;
    if (!match) continue;
    const version = Number(match[1]);
    const text = await Deno.readTextFile(new URL(entry.name, dir));
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
      checksum: await sha256Hex(half.up),
    });
  }
  return migrations.sort((a, b) => a.version - b.version);
}
