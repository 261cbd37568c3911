import assert from "node:assert/strict";
import { releaseBuildInfo, withBuildInfo } from "./build_info.ts";

const dir = new URL("../services/runner-ctl/", import.meta.url);

Deno.test("release build metadata: version, commit, date", async () => {
  const info = await releaseBuildInfo(dir, (k) => ({ SOURCE_DATE_EPOCH: "1700000000" })[k]);
  assert.equal(
    info.version,
    JSON.parse(await Deno.readTextFile(new URL("deno.json", dir))).version,
  );
  assert.match(info.commit, /^([0-9a-f]{40}|none)$/);
  assert.equal(info.date, "2023-11-14T22:13:20Z");
  const tagged = await releaseBuildInfo(dir, (k) => ({ RELEASE_VERSION: "1.2.3" })[k], () => 0);
  assert.equal(tagged.version, "1.2.3");
  assert.equal(tagged.date, "1970-01-01T00:00:00Z");
});

Deno.test("withBuildInfo writes the file for the compile and restores it", async () => {
  const file = new URL(`file://${await Deno.makeTempFile()}`);
  await Deno.writeTextFile(file, '{ "version": "dev", "commit": "none", "date": "unknown" }\n');
  const seen = await withBuildInfo(
    file,
    { version: "1", commit: "c", date: "d" },
    () => Deno.readTextFile(file),
  );
  assert.deepEqual(JSON.parse(seen), { version: "1", commit: "c", date: "d" });
  assert.equal(JSON.parse(await Deno.readTextFile(file)).version, "dev");
  await assert.rejects(withBuildInfo(file, { version: "2", commit: "c", date: "d" }, () => {
    throw new Error("compile failed");
  }));
  assert.equal(JSON.parse(await Deno.readTextFile(file)).version, "dev", "restored after failure");
  await Deno.remove(file);
});
