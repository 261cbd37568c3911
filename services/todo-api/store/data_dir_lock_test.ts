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

Deno.test("a server's announced URL reaches whoever finds the directory locked; junk is ignored", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const dataDir = `${dir}/db`;
    const first = await acquireDataDirLock(dataDir);
    const before = await acquireDataDirLock(dataDir).then(() => undefined, (e) => e);
    assert.ok(before instanceof DataDirLockedError);
    assert.equal(before.serverUrl, undefined); // not announced yet
    await first.announce("http://127.0.0.1:8081");
    assert.equal(await Deno.readTextFile(first.path), `${Deno.pid}\nhttp://127.0.0.1:8081\n`);
    const err = await acquireDataDirLock(dataDir).then(() => undefined, (e) => e);
    assert.ok(err instanceof DataDirLockedError);
    assert.equal(err.serverUrl, "http://127.0.0.1:8081");
    assert.match(err.message, /in use by another process \(pid \d+\)/);
    // Announced again (a shorter URL): the file holds the new one only.
    await first.announce("http://[::1]:9");
    assert.equal(await Deno.readTextFile(first.path), `${Deno.pid}\nhttp://[::1]:9\n`);
    for (const junk of ["file:///etc/passwd", "http://a b", "http://h/path", "not a url"]) {
      await first.announce(junk);
      const e = await acquireDataDirLock(dataDir).then(() => undefined, (x) => x);
      assert.ok(e instanceof DataDirLockedError);
      assert.equal(e.serverUrl, undefined, junk);
    }
    await first.release();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
