import assert from "node:assert/strict";
import { versionLine, versionRequested } from "./build_info.ts";

Deno.test("versionLine: name, version, commit and date", () => {
  const build = { version: "1.2.3", commit: "abc123", date: "2026-01-02T03:04:05Z" };
  assert.equal(
    versionLine({ name: "svc", build }),
    "svc 1.2.3 (commit abc123, built 2026-01-02T03:04:05Z)",
  );
});

Deno.test("versionRequested: only a lone --version", () => {
  assert.equal(versionRequested(["--version"]), true);
  assert.equal(versionRequested([]), false);
  assert.equal(versionRequested(["--version", "x"]), false);
  assert.equal(versionRequested(["serve", "--version"]), false);
  assert.equal(versionRequested(["-v"]), false);
});
