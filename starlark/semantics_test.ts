/**
 * Semantics as the newest starlark-go has them
 * (docs/starlark.md#semantics-of-the-newest-starlark-go).
 */
import assert from "node:assert/strict";
import { parse, run, type RunResult, StarlarkError } from "./mod.ts";

function valueOf(r: RunResult): unknown {
  assert.ok(r.ok, r.ok ? "" : `${r.error.code}: ${r.error.message}`);
  return r.value;
}

function main(body: string): string {
  return "def main():\n" + body.split("\n").map((l) => "    " + l).join("\n") + "\n";
}

Deno.test("extending a list by itself works at 200 000 elements", async (t) => {
  for (const stmt of ["l.extend(l)", "l += l"]) {
    await t.step(stmt, async () => {
      const r = await run(
        main(`l = list(range(200000))\n${stmt}\nreturn [len(l), l[199999], l[200000]]`),
      );
      assert.deepEqual(valueOf(r), [400000, 199999, 0]);
    });
  }
  await t.step("zip(*([[1]] * 200000))", async () => {
    const r = await run(main("z = zip(*([[1]] * 200000))\nreturn [len(z), len(z[0])]"));
    assert.deepEqual(valueOf(r), [1, 200000]);
  });
});

Deno.test("dict |= updates in place: an alias sees it; frozen dicts refuse", async () => {
  const r = await run(main('d = {"a": 1}\ne = d\nd |= {"b": 2, "a": 3}\nreturn [e, d == e]'));
  assert.deepEqual(valueOf(r), [{ a: 3, b: 2 }, true]);
  const frozen = await run('L = [{"a": 1}]\ndef main():\n    L[0] |= {"b": 2}\n');
  assert.ok(!frozen.ok);
  assert.equal(frozen.error.message, "cannot apply |= to frozen hash table");
});

Deno.test("bytes index to 1-byte bytes; hash of bytes is unsigned", async () => {
  const r = await run(
    main('return [b"hello"[0] == b"h", type(b"hello"[-1]), hash(b""), hash(b"a") > 0]'),
  );
  assert.deepEqual(valueOf(r), [true, "bytes", 2166136261, true]);
});

Deno.test("break/continue in a def nested in a loop is a static error", () => {
  for (const kw of ["break", "continue"]) {
    const src = `def main():\n    for x in [1]:\n        def f():\n            ${kw}\n`;
    assert.throws(() => parse(src), (e) => {
      assert.ok(e instanceof StarlarkError);
      assert.equal(e.message, `<program>:4:13: ${kw} not in a loop`);
      return true;
    });
  }
  // still fine directly in the loop, and in a loop inside the nested def
  parse(
    "def main():\n    for x in [1]:\n        def f():\n            for y in [2]:\n" +
      "                break\n        continue\n",
  );
});

Deno.test("isalnum counts only decimal digits; functions equal themselves", async () => {
  const r = await run(main(
    'def f():\n    pass\nreturn ["①".isalnum(), "Ⅻ".isalnum(), "a1".isalnum(), "٣".isalnum(), ' +
      "f == f, f != f, len == len]",
  ));
  assert.deepEqual(valueOf(r), [false, false, true, true, true, false, true]);
});

/**
 * Every operator on bytes, as newer starlark-go's `Binary`, `Unary`, `compare` and `Bytes.Has`
 * have them (Debian's snapshot has no bytes, so these are not differential): `+` has no bytes
 * case (`unknown binary op: bytes + bytes`), but the compiler folds adjacent bytes literals
 * (`b"a" + b"b"` is `b"ab"`); `*` repeats with an int32 count; `in` takes bytes or
 * an int in the unsigned 8-bit range; comparisons are bytewise within bytes and refused across
 * types except `==`/`!=`.
 */
Deno.test("bytes operators as newer starlark-go", async (t) => {
  const cases: [string, unknown][] = [
    ['repr(b"a" + b"b")', 'b"ab"'],
    ['[b"a"][0] + b"b"', "unknown binary op: bytes + bytes"],
    ['b"a" + "b"', "unknown binary op: bytes + string"],
    ['"a" + b"b"', "unknown binary op: string + bytes"],
    ['b"a" - b"b"', "unknown binary op: bytes - bytes"],
    ['b"a" / b"a"', "unknown binary op: bytes / bytes"],
    ['b"a" // b"a"', "unknown binary op: bytes // bytes"],
    ['b"%d" % 1', "unknown binary op: bytes % int"],
    ['b"a" | b"b"', "unknown binary op: bytes | bytes"],
    ['b"a" & b"b"', "unknown binary op: bytes & bytes"],
    ['b"a" ^ b"b"', "unknown binary op: bytes ^ bytes"],
    ['b"a" << 1', "unknown binary op: bytes << int"],
    ['b"a" * 1.0', "unknown binary op: bytes * float"],
    ['b"a" * True', "unknown binary op: bytes * bool"],
    ['-b"a"', "unknown unary op: - bytes"],
    ['+b"a"', "unknown unary op: + bytes"],
    ['~b"a"', "unknown unary op: ~ bytes"],
    ['repr(b"ab" * 2)', 'b"abab"'],
    ['repr(2 * b"ab")', 'b"abab"'],
    ['repr(b"ab" * -1)', 'b""'],
    ['repr(b"" * (1 << 40))', 'b""'],
    ['b"ab" * (1 << 31)', "repeat count 2147483648 too large"],
    ['b"ab" * (1 << 29)', "excessive repeat (2 * 536870912 elements)"],
    ['[not b"", b"a" == b"a", b"a" != b"b", b"a" == "a", b"a" != "a"]', [
      true,
      true,
      true,
      false,
      true,
    ]],
    ['[b"a" < b"b", b"a" <= b"a", b"b" > b"a", b"a" >= b"b", b"\\xff" > b"a"]', [
      true,
      true,
      true,
      false,
      true,
    ]],
    ['b"a" < "a"', "bytes < string not implemented"],
    ['1 > b"a"', "int > bytes not implemented"],
    ['[b"ab" in b"xaby", b"" in b"", 97 in b"abc", 0 in b"a", b"a" not in b"b"]', [
      true,
      true,
      true,
      false,
      true,
    ]],
    ['256 in b""', "int in bytes: 256 out of range (want value in unsigned 8-bit range)"],
    ['-1 in b"a"', "int in bytes: -1 out of range (want value in unsigned 8-bit range)"],
    [
      '(1 << 64) in b"a"',
      "int in bytes: 18446744073709551616 out of range (want value in unsigned 8-bit range)",
    ],
    ['True in b"a"', "'in bytes' requires bytes or int as left operand, not bool"],
    ['"a" in b"a"', "'in bytes' requires bytes or int as left operand, not string"],
    ['b"a" in "a"', "'in <string>' requires string as left operand, not bytes"],
    ['b"a" in range(3)', "'in <range>' requires integer as left operand, not bytes"],
    ['[repr(b"abc"[-1]), repr(b"abcdef"[1:4:2]), repr(b"abc"[::-1]), len(b"abc")]', [
      'b"c"',
      'b"bd"',
      'b"cba"',
      3,
    ]],
    ['b"abc"[3]', "bytes index 3 out of range [-3:2]"],
    ['b"abc"[1 << 40]', "bytes index: 1099511627776 out of range"],
    ['[x for x in b"ab"]', "bytes value is not iterable"],
    ['{b"a": 1}[b"a"]', 1],
  ];
  for (const [expr, want] of cases) {
    await t.step(expr, async () => {
      const r = await run(main(`return ${expr}`));
      assert.deepEqual(r.ok ? r.value : r.error.message, want);
    });
  }
});

Deno.test("int(text, base) reads a prefix that the base does not match as digits", async () => {
  // the spec: "int("0b1", 16)  # 177 (0xb1)"; a matching prefix is permitted and has no effect
  const r = await run(main(
    'return [int("0b0", 16), int("0b1", 16), int("0B1", 16), int("-0b1", 16), int("0b1", 36), ' +
      'int("0x1", 36), int("0o7", 36), int("0b", 16), int("00b1", 16), int("0x11", 16), ' +
      'int("0b1", 2), int("0b1", 0), int("0o17", 8)]',
  ));
  assert.deepEqual(valueOf(r), [176, 177, 177, -177, 397, 1189, 871, 11, 177, 17, 1, 1, 15]);
  for (
    const [expr, msg] of [
      ['int("0o7", 16)', "int: invalid literal with base 16: 0o7"],
      ['int("0b1", 8)', "int: invalid literal with base 8: 0b1"],
      ['int("0x", 16)', "int: invalid literal with base 16: 0x"],
      ['int("0b_1", 16)', "int: invalid literal with base 16: 0b_1"],
      ['int("0755", 0)', "int: invalid literal with base 0: 0755"],
    ]
  ) {
    const e = await run(main(`return ${expr}`));
    assert.equal(e.ok ? e.value : e.error.message, msg);
  }
});

Deno.test("hash and ord of a non-string say they want a string or bytes", async () => {
  for (const f of ["hash", "ord"]) {
    for (const [arg, type] of [["[1]", "list"], ["None", "NoneType"], ["1", "int"]]) {
      const r = await run(main(`return ${f}(${arg})`));
      assert.equal(r.ok ? r.value : r.error.message, `${f}: got ${type}, want string or bytes`);
    }
  }
});
