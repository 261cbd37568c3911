import assert from "node:assert/strict";
import { SettingsError } from "@svc/shared/settings";
import { dataDirError, lockFileError, parentOf, prepareDataDir } from "./data_dir_check.ts";

const CHANGE = "(change --data-dir / TODOAPI_DATA_DIR)";

async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "todo_api_data_dir_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function refusal(dataDir: string): Promise<SettingsError> {
  try {
    await prepareDataDir(dataDir);
  } catch (err) {
    assert.ok(err instanceof SettingsError, String(err));
    return err;
  }
  throw new Error(`prepareDataDir(${dataDir}) did not throw`);
}

Deno.test("a data directory that is a regular file: one line naming the setting", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/file`, "x");
    const err = await refusal(`${dir}/file`);
    assert.equal(err.key, "data_dir");
    assert.equal(
      err.message,
      `Cannot open data directory ${dir}/file: it is not a directory ${CHANGE}`,
    );
    assert.deepEqual(
      (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name),
      ["file"],
      "no lock file or directory left beside it",
    );
  });
});

Deno.test("a data directory whose path runs through a file (as parent, or further up)", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/file`, "x");
    for (const path of [`${dir}/file/db`, `${dir}/file/a/b/db`]) {
      const err = await refusal(path);
      assert.equal(
        err.message,
        `Cannot open data directory ${path}: a part of its path is a file, not a directory ` +
          CHANGE,
      );
    }
  });
});

Deno.test("a missing data directory: its missing parents are made, it is left to PGlite", async () => {
  await withTempDir(async (dir) => {
    await prepareDataDir(`${dir}/a/b/db`);
    assert.ok((await Deno.stat(`${dir}/a/b`)).isDirectory);
    await assert.rejects(Deno.stat(`${dir}/a/b/db`), Deno.errors.NotFound);
    // An existing directory, and the same again: nothing to do, no error.
    await Deno.mkdir(`${dir}/a/b/db`);
    await prepareDataDir(`${dir}/a/b/db`);
    await prepareDataDir(`${dir}/a/b/db/`);
  });
});

// Made before the test that narrows its permissions (it could not make them), removed when the
// file's tests end, also when a filter skips that test.
const base = await Deno.makeTempDir({ prefix: "todo_api_data_dir_grant_" });
const outside = `${base}/outside`;
const granted = `${base}/granted`;
await Deno.mkdir(outside);
await Deno.mkdir(granted);
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));

Deno.test({
  name: "a data directory outside the process's read/write grant: the permission, the setting",
  permissions: { read: [granted], write: [granted] },
  async fn() {
    for (const path of [`${outside}/db`, `${outside}/missing/db`, "/nonexistent/x/db"]) {
      const err = await refusal(path);
      assert.equal(
        err.message,
        `Cannot open data directory ${path}: the process has no permission to read and write ` +
          `there (the deployed grant: ./.data) ${CHANGE}`,
      );
    }
    // Inside the grant the same checks pass.
    await prepareDataDir(`${granted}/a/db`);
  },
});

Deno.test("dataDirError: the OS's refusals in words, the error kept as the cause", () => {
  const denied = new Deno.errors.PermissionDenied("Permission denied (os error 13)");
  const err = dataDirError("/srv/db", denied);
  assert.equal(err.message, `Cannot open data directory /srv/db: permission denied ${CHANGE}`);
  assert.equal(err.cause, denied);
  assert.equal(
    dataDirError("/srv/db", new Error("disk on fire")).message,
    `Cannot open data directory /srv/db: disk on fire ${CHANGE}`,
  );
  assert.equal(
    dataDirError("/srv/db", { errno: 54 }).message,
    `Cannot open data directory /srv/db: a value that is not an Error (errno 54) ${CHANGE}`,
  );
});

Deno.test("parentOf: the directory part of a path", () => {
  assert.equal(parentOf("./.data/todo-api"), "./.data");
  assert.equal(parentOf("./.data/todo-api/"), "./.data");
  assert.equal(parentOf("/db"), "/");
  assert.equal(parentOf("db"), ".");
  assert.equal(parentOf("/a/b/c"), "/a/b");
});

Deno.test("lockFileError: the lock file beside the directory is named, with why", () => {
  const denied = new Deno.errors.PermissionDenied("Permission denied (os error 13)");
  const err = lockFileError("/srv/db", "/srv/db.lock", denied);
  assert.equal(err.key, "data_dir");
  assert.equal(
    err.message,
    "Cannot open data directory /srv/db: its lock file /srv/db.lock cannot be opened " +
      `(permission denied) ${CHANGE}`,
  );
  assert.equal(err.cause, denied);
  assert.equal(
    lockFileError("/srv/db", "/srv/db.lock", new Deno.errors.IsADirectory("Is a directory"))
      .message,
    `Cannot open data directory /srv/db: its lock file /srv/db.lock cannot be opened (it is a ` +
      `directory) ${CHANGE}`,
  );
});
