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
