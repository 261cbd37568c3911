import assert from "node:assert/strict";
import { MAX_CAPTURE_BYTES, MAX_CAPTURE_FILES, writeCapture } from "./console_capture.ts";

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
