/**
 * An exclusive lock on a PGlite data directory. PGlite itself does not stop a second process
 * from opening the same directory (both write, and the directory ends up corrupt), so we hold an
 * advisory `flock` on a file beside it. The kernel drops the lock when the process dies, so a
 * crashed process never leaves a stale lock behind.
 * @module
 */

/** Thrown when another process (or another open in this one) holds the directory. */
export class DataDirLockedError extends Error {
  /** Stable code. */
  readonly code = "data_dir_locked";
  /** Creates the error for `dataDir`; `holder` describes the other process (may be empty). */
  constructor(dataDir: string, holder: string) {
    super(
      `Cannot open data directory ${dataDir}: it is in use by another process${holder}. ` +
        "Stop that process, or run this command through it.",
    );
    this.name = "DataDirLockedError";
  }
}

/** A held lock on a data directory. */
export interface DataDirLock {
  /** The lock file: `<dir>.lock`, beside the directory. */
  readonly path: string;
  /** Unlocks and closes the file. */
  release(): Promise<void>;
}

/** Path of the lock file for a data directory: `<dir>.lock`, beside it. */
export function lockPathFor(dataDir: string): string {
  return `${dataDir.replace(/\/+$/, "")}.lock`;
}

/** Takes the lock or throws {@linkcode DataDirLockedError} without waiting. */
export async function acquireDataDirLock(dataDir: string): Promise<DataDirLock> {
  const path = lockPathFor(dataDir);
  const file = await Deno.open(path, { read: true, write: true, create: true });
  let locked = false;
  try {
    locked = await file.tryLock(true);
  } catch (err) {
    file.close();
    throw err;
  }
  if (!locked) {
    let holder = "";
    try {
      const pid = (await Deno.readTextFile(path)).trim();
      if (/^\d+$/.test(pid)) holder = ` (pid ${pid})`;
    } catch {
      // The pid is only a hint for the operator.
    }
    file.close();
    throw new DataDirLockedError(dataDir, holder);
  }
  await file.truncate(0);
  await file.write(new TextEncoder().encode(`${Deno.pid}\n`));
  return {
    path,
    async release(): Promise<void> {
      try {
        await file.unlock();
      } finally {
        file.close();
      }
    },
  };
}
