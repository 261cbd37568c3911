/**
 * A message for anything thrown. Libraries do not always throw `Error`s (PGlite's Emscripten file
 * system throws `ErrnoError` objects: a name and a WASI errno, no message), and `String()` of
 * those prints `[object Object]`, which tells an operator nothing.
 * @module
 */

/**
 * The message of an `Error`; for another value, what can be said of it without printing its
 * contents (which may hold anything): its `message` when it has one, else its kind and its
 * `code`/`errno` when it has them.
 *
 * @example Usage
 * ```ts
 * import { thrownMessage } from "./thrown.ts";
 * thrownMessage(new Error("boom")); // "boom"
 * thrownMessage({ name: "ErrnoError", errno: 54 });
 * // "ErrnoError (errno 54: ENOTDIR, not a directory)"
 * ```
 */
export function thrownMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  if (typeof err === "string") return err || "an empty string was thrown";
  if (typeof err !== "object" || err === null) return `${String(err)} was thrown`;
  const value = err as Record<string, unknown>;
  if (typeof value.message === "string" && value.message !== "") {
    return value.message.split("\n")[0];
  }
  const ctor = (value.constructor as { name?: unknown } | undefined)?.name;
  const kind = typeof value.name === "string" && value.name !== ""
    ? value.name
    : typeof ctor === "string" && ctor !== "" && ctor !== "Object"
    ? ctor
    : "a value that is not an Error";
  const details = ["code", "errno"]
    .filter((k) => typeof value[k] === "string" || typeof value[k] === "number")
    .map((k) => `${k} ${value[k]}`);
  const wasi = kind === "ErrnoError" ? WASI_ERRNO[value.errno as number] : undefined;
  if (wasi) details[details.length - 1] += `: ${wasi}`;
  return details.length ? `${kind} (${details.join(", ")})` : `${kind} was thrown`;
}

/**
 * Emscripten's `ErrnoError` carries WASI errno numbers (not the host's): the ones a file system
 * meets, as PGlite's bundle numbers them.
 */
const WASI_ERRNO: Record<number, string> = {
  2: "EACCES, permission denied",
  10: "EBUSY, device or resource busy",
  20: "EEXIST, file exists",
  31: "EISDIR, is a directory",
  44: "ENOENT, no such file or directory",
  51: "ENOSPC, no space left on device",
  54: "ENOTDIR, not a directory",
  55: "ENOTEMPTY, directory not empty",
  63: "EPERM, operation not permitted",
  69: "EROFS, read-only file system",
};
