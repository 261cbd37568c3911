import assert from "node:assert/strict";
import { newerText, newerThanReference } from "./newer.ts";

Deno.test("the reference's 2021 texts are rewritten to the newer ones we follow, others kept", () => {
  assert.equal(
    newerText("hash: for parameter 1: got list, want string"),
    "hash: got list, want string or bytes",
  );
  assert.equal(newerText("ord: got int, want string"), "ord: got int, want string or bytes");
  for (
    const kept of [
      "hash: got list, want string or bytes",
      "ord: string encodes 2 Unicode code points, want 1",
      "int: base must be an integer >= 2 && <= 36",
    ]
  ) {
    assert.equal(newerText(kept), kept);
  }
});

Deno.test("programs using newer behaviour are recognised, others are not", () => {
  const prog = (e: string) => `def main():\n    return ${e}\n`;
  for (
    const newer of [
      'int("0b1", 16)',
      'int("-0x1", 36)',
      'int("0O7", 10)',
      'b"a"',
      '"%F" % 1.0',
      'dir("")',
    ]
  ) {
    assert.ok(newerThanReference(prog(newer)), newer);
  }
  for (
    const same of ['int("0b1", 2)', 'int("0x1", 0)', 'int("0b", 16)', 'int("10", 16)', "b"]
  ) {
    assert.ok(!newerThanReference(prog(same)), same);
  }
});
