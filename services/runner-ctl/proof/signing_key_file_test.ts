import assert from "node:assert/strict";
import { SettingsError } from "@svc/shared/settings";
import { loadJobProofSettings, SIGNING_KEY_LIMIT_BYTES } from "./signing_key_file.ts";
import { generatePemPair } from "./_test_support.ts";

const H = "job_proof.host_id";
const F = "job_proof.signing_key_file";
const rejectsWith = (key: string, message: RegExp) => (e: unknown) =>
  e instanceof SettingsError && e.key === key && message.test(e.message);

Deno.test("loadJobProofSettings", async (t) => {
  const dir = await Deno.makeTempDir();
  const { privatePem, publicPem } = await generatePemPair();
  const write = async (name: string, text: string) => {
    await Deno.writeTextFile(`${dir}/${name}`, text);
    return `${dir}/${name}`;
  };
  try {
    const good = await write("key.pem", privatePem);
    await t.step("off when both are empty; on when both are set", async () => {
      assert.equal(await loadJobProofSettings({ [H]: "", [F]: "" }), undefined);
      const s = await loadJobProofSettings({ [H]: "host-a", [F]: good });
      assert.equal(s?.hostId, "host-a");
      assert.match(s!.key.keyid, /^[0-9a-f]{64}$/);
    });
    await t.step("one alone fails startup, naming the missing setting", async () => {
      await assert.rejects(
        loadJobProofSettings({ [H]: "host-a", [F]: "" }),
        rejectsWith(F, /required/),
      );
      await assert.rejects(
        loadJobProofSettings({ [H]: "", [F]: good }),
        rejectsWith(H, /required/),
      );
    });
    await t.step("16 KiB: at the limit is read, one byte over is refused", async () => {
      // Trailing newlines keep one PEM block and let the file reach any size.
      const pad = (n: number) => privatePem + "\n".repeat(n - privatePem.length);
      const at = await write("at.pem", pad(SIGNING_KEY_LIMIT_BYTES));
      const over = await write("over.pem", pad(SIGNING_KEY_LIMIT_BYTES + 1));
      assert.ok(await loadJobProofSettings({ [H]: "h", [F]: at }));
      await assert.rejects(
        loadJobProofSettings({ [H]: "h", [F]: over }),
        rejectsWith(F, /larger than 16384/),
      );
    });
    await t.step("not a regular file, missing, or not exactly one Ed25519 PKCS#8 key", async () => {
      await assert.rejects(
        loadJobProofSettings({ [H]: "h", [F]: dir }),
        rejectsWith(F, /regular file/),
      );
      await assert.rejects(
        loadJobProofSettings({ [H]: "h", [F]: `${dir}/none` }),
        rejectsWith(F, /cannot be read/),
      );
      for (const text of [publicPem, privatePem + privatePem, "", "junk"]) {
        const path = await write("bad.pem", text);
        await assert.rejects(
          loadJobProofSettings({ [H]: "h", [F]: path }),
          (e) =>
            rejectsWith(F, /exactly one PKCS#8 PEM Ed25519/)(e) &&
            !(e as Error).message.includes(dir),
        );
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
