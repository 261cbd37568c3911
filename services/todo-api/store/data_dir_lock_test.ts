import assert from "node:assert/strict";
import { acquireDataDirLock, DataDirLockedError, lockPathFor } from "./data_dir_lock.ts";

Deno.test("a second lock on the same data directory fails with a clear error, then succeeds after release", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const dataDir = `${dir}/db`;
    const first = await acquireDataDirLock(dataDir);
    assert.equal(first.path, lockPathFor(dataDir));
    assert.equal((await Deno.readTextFile(first.path)).trim(), String(Deno.pid));
    const err = await assert.rejects(acquireDataDirLock(dataDir), DataDirLockedError);
    void err;
    await assert.rejects(acquireDataDirLock(dataDir), /in use by another process \(pid \d+\)/);
    await first.release();
    const again = await acquireDataDirLock(dataDir);
    await again.release();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a lock held by a killed process is free again (no stale lock file)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const dataDir = `${dir}/db`;
    const holder = new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        `import { acquireDataDirLock } from ${
          JSON.stringify(import.meta.resolve("./data_dir_lock.ts"))
        };
         const lock = await acquireDataDirLock(${JSON.stringify(dataDir)});
         console.log("locked", lock.path);
         setInterval(() => {}, 1000);`,
      ],
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const reader = holder.stdout.pipeThrough(new TextDecoderStream()).getReader();
    assert.match((await reader.read()).value ?? "", /locked/);
    await assert.rejects(acquireDataDirLock(dataDir), DataDirLockedError);
    holder.kill("SIGKILL");
    await holder.status;
    await reader.cancel();
    const lock = await acquireDataDirLock(dataDir);
    await lock.release();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
