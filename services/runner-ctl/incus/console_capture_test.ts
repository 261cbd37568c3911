import assert from "node:assert/strict";
import {
  capturePath,
  MAX_CAPTURE_BYTES,
  MAX_CAPTURE_FILES,
  writeCapture,
} from "./console_capture.ts";

Deno.test("console captures", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    await t.step("owner-only file, size at, below and above 1 MiB (tail kept)", async () => {
      for (
        const [n, size] of [[1, MAX_CAPTURE_BYTES - 1], [2, MAX_CAPTURE_BYTES], [
          3,
          MAX_CAPTURE_BYTES + 1,
        ]]
      ) {
        const data = new Uint8Array(size).fill(65);
        data[size - 1] = 90;
        const path = await writeCapture(`${dir}/caps`, `r${n}`, data, () => n * 1000);
        const st = await Deno.stat(path);
        assert.equal(st.mode! & 0o777, 0o600);
        assert.equal(st.size, Math.min(size, MAX_CAPTURE_BYTES));
        const back = await Deno.readFile(path);
        assert.equal(back[back.length - 1], 90, "the end of the console is kept");
      }
      assert.equal((await Deno.stat(`${dir}/caps`)).mode! & 0o777, 0o700);
    });
    await t.step("at most 256 files, oldest removed first", async () => {
      const d = `${dir}/many`;
      for (let i = 0; i < MAX_CAPTURE_FILES + 2; i++) {
        await writeCapture(
          d,
          `r${String(i).padStart(3, "0")}`,
          new Uint8Array([i % 256]),
          () => 1000 + i,
        );
      }
      const names = [];
      for await (const e of Deno.readDir(d)) names.push(e.name);
      assert.equal(names.length, MAX_CAPTURE_FILES);
      assert.ok(!names.some((n) => n.startsWith("r000-") || n.startsWith("r001-")));
      assert.ok(names.some((n) => n.startsWith("r257-")));
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Instance names that would pick a file outside the diagnostics directory, or an odd one. */
const HOSTILE_NAMES = [
  "..",
  ".",
  "",
  "../x",
  "../../etc/cron.d/runner",
  "/etc/passwd",
  "a/b",
  "%2e%2e",
  "..%2fx",
  "a\\b",
  "..\\x",
  "a\0b",
  "\0",
  "a\nb",
  "x".repeat(64),
  "x".repeat(4096),
];

Deno.test("capturePath() keeps every capture inside the directory", async (t) => {
  const at = Date.UTC(2026, 0, 2, 3, 4, 5, 6);
  await t.step("a runner name gives <dir>/<name>-<UTC time>.log", () => {
    assert.equal(
      capturePath("/var/log/rc", "linux-0a1b2c3d", at),
      "/var/log/rc/linux-0a1b2c3d-2026-01-02T03-04-05-006Z.log",
    );
    assert.equal(
      capturePath("/var/log/rc//", "r1", at),
      "/var/log/rc/r1-2026-01-02T03-04-05-006Z.log",
    );
    assert.equal(capturePath("d", "x".repeat(63), at).length, "d/".length + 63 + 29);
  });
  for (const name of HOSTILE_NAMES) {
    await t.step(`refused: ${JSON.stringify(name).slice(0, 40)}`, () => {
      assert.throws(
        () => capturePath("/var/log/rc", name, at),
        (e: unknown) =>
          e instanceof TypeError &&
          e.message === "Cannot name a console capture: not a valid instance name",
      );
    });
  }
});

Deno.test("writeCapture() of a hostile instance name writes nothing anywhere", async () => {
  const root = await Deno.makeTempDir();
  try {
    for (const name of HOSTILE_NAMES) {
      await assert.rejects(writeCapture(`${root}/diag/caps`, name, new Uint8Array([1])), TypeError);
    }
    const left: string[] = [];
    for await (const e of Deno.readDir(root)) left.push(e.name);
    assert.deepEqual(left, [], "not even the directory was made");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
