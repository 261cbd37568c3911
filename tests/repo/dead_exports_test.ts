import assert from "node:assert/strict";
import { check, findDeadExports, type Finding, readAllowlist } from "./dead_exports.ts";

const finding = (file: string, name: string): Finding => ({
  file,
  name,
  kind: "unused",
  usedInFile: true,
  importers: [],
});

Deno.test("check() applies the allowlist by file, folder and name, and reports stale entries", () => {
  const findings = [finding("a/x.ts", "one"), finding("a/x.ts", "two"), finding("b/y.ts", "z")];
  const reason = "r";
  assert.deepEqual(check(findings, []), { dead: findings, stale: [] });
  assert.deepEqual(check(findings, [{ file: "a/x.ts", name: "one", reason }]).dead, [
    findings[1],
    findings[2],
  ]);
  assert.deepEqual(check(findings, [{ file: "a/", name: "*", reason }]).dead, [findings[2]]);
  const stale = { file: "c/z.ts", name: "gone", reason };
  assert.deepEqual(check(findings, [stale]).stale, [stale]);
});

Deno.test("no export in the workspace is dead (tests/repo/dead_exports_allow.json lists the kept ones)", async () => {
  const { dead, stale } = check(await findDeadExports(), await readAllowlist());
  assert.deepEqual(dead, [], "drop `export` or delete these (or allow one with its reason)");
  assert.deepEqual(stale, [], "these allowances match nothing any more: remove them");
});
