/**
 * Serial-console captures of terminal runners into `incus.diagnostics_dir`: one file per
 * capture, owner-only permissions (the content can include workload output), at most 1 MiB each
 * (the tail is kept: the end of a console says why a runner died), at most 256 files (the oldest
 * are removed). The console response is cumulative, so each capture writes the latest response
 * whole, never appends.
 *
 * @module
 */

/** At most this many bytes per capture file. */
export const MAX_CAPTURE_BYTES = 1024 * 1024;
/** At most this many capture files are kept. */
export const MAX_CAPTURE_FILES = 256;

/** Writes one capture and prunes the directory; returns the file path. */
export async function writeCapture(
  dir: string,
  instance: string,
  log: Uint8Array,
  now: () => number = Date.now,
): Promise<string> {
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const stamp = new Date(now()).toISOString().replace(/[:.]/g, "-");
  const path = `${dir.replace(/\/+$/, "")}/${instance}-${stamp}.log`;
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
