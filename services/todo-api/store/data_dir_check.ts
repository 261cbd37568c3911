/**
 * Checks a PGlite data directory setting before PGlite is loaded. Given a regular file (or a path
 * through one), PGlite spins for seconds and then throws a value that is not an `Error`; a path
 * the process may not write fails deep inside it. Both are settings problems: one line naming the
 * setting, as a `SettingsError`, so every command exits 2 at once.
 * @module
 */
import { SettingsError } from "@svc/shared/settings";
import { SETTINGS } from "../settings.ts";
import { thrownMessage } from "../thrown.ts";

/**
 * Makes sure `dataDir` can be PGlite's directory: it is one, or it is missing and its parent
 * exists or can be created (PGlite's NodeFS creates the directory itself, without `recursive`).
 * Creates the missing parents. (A parent the OS does not let this user write is found by the lock
 * file's creation next: `acquireDataDirLock`'s error goes through {@linkcode dataDirError}.)
 * @throws {SettingsError} (key `data_dir`) when the path is not a directory, runs through a file,
 * or cannot be read or written (the OS or the process's permissions).
 */
export async function prepareDataDir(dataDir: string): Promise<void> {
  let info: Deno.FileInfo | undefined;
  try {
    info = await Deno.stat(dataDir);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw dataDirError(dataDir, err);
  }
  if (info && !info.isDirectory) throw dataDirError(dataDir, "it is not a directory");
  try {
    // Also checks the write grant on the parent, where the lock file goes (`<dir>.lock`).
    await Deno.mkdir(parentOf(dataDir), { recursive: true });
  } catch (err) {
    throw dataDirError(dataDir, err);
  }
}

/**
 * The one-line error for `dataDir`, with why: a reason, or the error met on the way (on the
 * directory or its path; one met on the lock file beside it is {@linkcode lockFileError}).
 */
export function dataDirError(dataDir: string, why: unknown): SettingsError {
  const reason = typeof why === "string" ? why : reasonOf(why);
  const error = new SettingsError(
    "data_dir",
    `Cannot open data directory ${dataDir}: ${reason} (change ${SETTINGS.names("data_dir")})`,
  );
  if (typeof why !== "string") error.cause = why;
  return error;
}

/** The one-line error for a lock file (`<dir>.lock`, beside `dataDir`) that cannot be opened. */
export function lockFileError(dataDir: string, lockPath: string, err: unknown): SettingsError {
  const reason = err instanceof Deno.errors.IsADirectory ? "it is a directory" : reasonOf(err);
  const error = dataDirError(dataDir, `its lock file ${lockPath} cannot be opened (${reason})`);
  error.cause = err;
  return error;
}

function reasonOf(err: unknown): string {
  if (err instanceof Deno.errors.NotCapable) {
    return "the process has no permission to read and write there (the deployed grant: ./.data)";
  }
  if (err instanceof Deno.errors.PermissionDenied) return "permission denied";
  if (err instanceof Deno.errors.NotADirectory || err instanceof Deno.errors.AlreadyExists) {
    return "a part of its path is a file, not a directory";
  }
  if (err instanceof Deno.errors.IsADirectory) return "it is not a directory";
  if (err instanceof Error && err.name !== "Error") return err.name;
  return thrownMessage(err);
}

/** The directory part of a path (`node:path` stays off the start path). */
export function parentOf(path: string): string {
  const cut = path.replace(/\/+$/, "").lastIndexOf("/");
  return cut <= 0 ? (cut === 0 ? "/" : ".") : path.slice(0, cut);
}
