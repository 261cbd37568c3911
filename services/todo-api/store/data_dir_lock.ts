/**
 * An exclusive lock on a PGlite data directory. PGlite itself does not stop a second process
 * from opening the same directory (both write, and the directory ends up corrupt), so we hold an
 * advisory `flock` on a file beside it. The kernel drops the lock when the process dies, so a
 * crashed process never leaves a stale lock behind. The file holds the holder's pid and, once a
 * `serve` listens, the URL it answers on ({@linkcode DataDirLock.announce}): a command that finds
 * the directory locked can then say where to send the same request instead.
 * @module
 */

/** Thrown when another process (or another open in this one) holds the directory. */
export class DataDirLockedError extends Error {
  /** Stable code. */
  readonly code = "data_dir_locked";
  /** The URL the holder answers on, when it is a server that announced it. */
  readonly serverUrl?: string;
  /**
   * Creates the error for `dataDir`; `holder` describes the other process (may be empty),
   * `serverUrl` is where it answers, if it said so.
   */
  constructor(dataDir: string, holder: string, serverUrl?: string) {
    super(
      `Cannot open data directory ${dataDir}: it is in use by another process${holder}. ` +
        "Stop that process, or run this command through it.",
    );
    this.name = "DataDirLockedError";
    this.serverUrl = serverUrl;
  }
}

/** A held lock on a data directory. */
export interface DataDirLock {
  /** The lock file: `<dir>.lock`, beside the directory. */
  readonly path: string;
  /** Unlocks and closes the file. */
  release(): Promise<void>;
  /** Records, after the pid, the URL a local client reaches the holding server at. */
  announce(url: string): Promise<void>;
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
    let serverUrl: string | undefined;
    try {
      const [pid, url] = (await Deno.readTextFile(path)).split("\n").map((l) => l.trim());
      if (/^\d+$/.test(pid)) holder = ` (pid ${pid})`;
      if (/^https?:\/\/[^\s/]+$/.test(url ?? "")) serverUrl = url;
    } catch {
      // The pid and the URL are only hints for the operator.
    }
    file.close();
    throw new DataDirLockedError(dataDir, holder, serverUrl);
  }
  const enc = new TextEncoder();
  const rewrite = async (text: string) => {
    await file.truncate(0);
    await file.seek(0, Deno.SeekMode.Start);
    await file.write(enc.encode(text));
  };
  await rewrite(`${Deno.pid}\n`);
  return {
    path,
    announce: (url) => rewrite(`${Deno.pid}\n${url}\n`),
    async release(): Promise<void> {
      try {
        await file.unlock();
      } finally {
        file.close();
      }
    },
  };
}
