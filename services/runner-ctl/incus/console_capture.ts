/**
 * Serial-console captures of terminal runners into `incus.diagnostics_dir`: one file per
 * capture, owner-only permissions (the content can include workload output), at most 1 MiB each
 * (the tail is kept: the end of a console says why a runner died), at most 256 files (the oldest
 * are removed). The console response is cumulative, so each capture writes the latest response
 * whole, never appends. The file name comes from the instance name, which is checked first
 * ({@linkcode capturePath}): a name from an Incus answer never picks a file outside the directory.
 *
 * @module
 */
import { isInstanceName } from "./resource_path.ts";

/** At most this many bytes per capture file. */
export const MAX_CAPTURE_BYTES = 1024 * 1024;
/** At most this many capture files are kept. */
export const MAX_CAPTURE_FILES = 256;

/**
 * The capture file of `instance` at time `at`: `<dir>/<instance>-<UTC time>.log`, the one place
 * a capture's path is made. Only a valid Incus instance name (a host name: letters, digits,
 * inner `-`) is accepted, so no `/`, backslash, NUL or `..` ever reaches the file name.
 *
 * @example Usage
 * ```ts
 * import { capturePath } from "./console_capture.ts";
 * capturePath("/var/log/runner-ctl/", "linux-0a1b2c3d", Date.UTC(2026, 0, 2, 3, 4, 5));
 * // "/var/log/runner-ctl/linux-0a1b2c3d-2026-01-02T03-04-05-000Z.log"
 * ```
 * @throws {TypeError} when `instance` is not a valid instance name (never echoed).
 */
export function capturePath(dir: string, instance: string, at: number): string {
  if (typeof instance !== "string" || !isInstanceName(instance)) {
    throw new TypeError("Cannot name a console capture: not a valid instance name");
  }
  const stamp = new Date(at).toISOString().replace(/[:.]/g, "-");
  return `${dir.replace(/\/+$/, "")}/${instance}-${stamp}.log`;
}

/** Writes one capture and prunes the directory; returns the file path. */
export async function writeCapture(
  dir: string,
  instance: string,
  log: Uint8Array,
  now: () => number = Date.now,
): Promise<string> {
  const path = capturePath(dir, instance, now());
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const data = log.length > MAX_CAPTURE_BYTES ? log.slice(log.length - MAX_CAPTURE_BYTES) : log;
  await Deno.writeFile(path, data, { mode: 0o600 });
  await Deno.chmod(path, 0o600); // the umask must not widen it
  await prune(dir);
  return path;
}

async function prune(dir: string): Promise<void> {
  const files: { path: string; mtime: number }[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (!e.isFile || !e.name.endsWith(".log")) continue;
    const path = `${dir}/${e.name}`;
    const st = await Deno.stat(path).catch(() => undefined);
    if (st) files.push({ path, mtime: st.mtime?.getTime() ?? 0 });
  }
  if (files.length <= MAX_CAPTURE_FILES) return;
  files.sort((a, b) => a.mtime - b.mtime || a.path.localeCompare(b.path));
  for (const f of files.slice(0, files.length - MAX_CAPTURE_FILES)) {
    await Deno.remove(f.path).catch(() => {});
  }
}
