/**
 * Durable storage for embedded PGlite. PGlite starts Postgres with `-F` (fsync off), and even
 * with fsync on, its WebAssembly file layer (Emscripten's NODEFS) has no `fsync`: Postgres'
 * `fsync()` calls end in a no-op and `fdatasync()` is a no-op by design. A commit is then only in
 * the OS page cache, and a power loss can drop acknowledged writes.
 *
 * {@linkcode DurableNodeFS} gives NODEFS a real `fsync` (the host's `fsync(2)` on the same file
 * descriptor), and {@linkcode DURABLE_START_PARAMS} turns fsync back on with
 * `wal_sync_method=fsync`, so every commit flushes the WAL before PGlite answers.
 * @module
 */
import { PGlite } from "@electric-sql/pglite";
import { NodeFS } from "@electric-sql/pglite/nodefs";
import { fsyncSync } from "node:fs";

type EmscriptenOpts = Record<string, unknown> & { preRun?: ((mod: unknown) => void)[] };
interface NodeFsStream {
  nfd?: number;
}
interface EmscriptenModule {
  NODEFS: { "stream_ops": { fsync?: (stream: NodeFsStream) => number } };
}

/** PGlite's start parameters with fsync on and the WAL flushed by `fsync`. */
export const DURABLE_START_PARAMS: readonly string[] = [
  ...PGlite.defaultStartParams.filter((p) => p !== "-F"),
  "-c",
  "fsync=on",
  "-c",
  "synchronous_commit=on",
  "-c",
  "wal_sync_method=fsync",
];

/** PGlite's Node file system with `fsync` that reaches the disk. */
export class DurableNodeFS extends NodeFS {
  /** Counts real fsync calls (tests read it to prove commits reach the disk). */
  fsyncs = 0;

  override async init(pg: PGlite, opts: Partial<EmscriptenOpts>) {
    const result = await super.init(pg, opts);
    const emscriptenOpts = result.emscriptenOpts as EmscriptenOpts;
    const patch = (mod: unknown) => {
      (mod as EmscriptenModule).NODEFS.stream_ops.fsync = (stream) => {
        if (stream.nfd !== undefined) {
          fsyncSync(stream.nfd);
          this.fsyncs++;
        }
        return 0;
      };
    };
    return {
      emscriptenOpts: { ...emscriptenOpts, preRun: [...emscriptenOpts.preRun ?? [], patch] },
    };
  }
}
