import assert from "node:assert/strict";
import { connect, errorOf, valueOf } from "./_test_support.ts";
import { main, testRegistry } from "./_execute_test_support.ts";

Deno.test("execute: success returns {result} with the converted value of main", async (t2) => {
  const c = await connect({ registry: testRegistry() });
  try {
    const cases: Array<[string, string, unknown]> = [
      [
        "three capability calls",
        main(
          "a = records.lookup(key='a')\nb = records.list(limit=1)\nn = time.now()\n" +
            "return {'a': a['value'], 'keys': b['keys'], 'ms': n['unix_ms']}",
        ),
        { a: "alpha", keys: ["a"], ms: 1_700_000_000_000 },
      ],
      ["None", main("return None"), null],
      ["tuple becomes array", main("return (1, 'x', True, 2.5)"), [1, "x", true, 2.5]],
      ["nested dict keeps insertion order", main("return {'b': [1], 'a': {'c': None}}"), {
        b: [1],
        a: { c: null },
      }],
      ["json and math", main("return [json.encode({'a': 1}), math.floor(2.5)]"), ['{"a":1}', 2]],
      ["print is discarded", main("print('hello')\nreturn 1"), 1],
      ["nested leaf", main("return echo.text(s='hi')"), { s: "hi" }],
      ["unreturned results are not exposed", main("records.lookup(key='a')\nreturn 0"), 0],
      ["globals are not exposed", "X = 5\n" + main("return X + 1"), 6],
      ["absent record is None", main("return records.lookup(key='zz')"), { value: null }],
    ];
    for (const [what, source, want] of cases) {
      await t2.step(what, async () => {
        assert.deepEqual(valueOf(await c.call("execute", { source })), { result: want });
      });
    }
    await t2.step("int64 extremes are exact in the text mirror", async () => {
      const r = await c.call("execute", {
        source: main("return [9223372036854775807, -9223372036854775808]"),
      });
      assert.equal(r.isError, undefined);
      assert.equal(
        (r.content[0] as { text: string }).text,
        '{"result":[9223372036854775807,-9223372036854775808]}',
      );
    });
  } finally {
    await c.close();
  }
});

Deno.test("execute: invalid program", async (t2) => {
  const c = await connect({ registry: testRegistry() });
  try {
    const cases: Array<[string, string, string]> = [
      [
        "syntax error with position",
        "def main(:\n  return 1\n",
        "invalid program: <program>:1:10: got ':', want ')'",
      ],
      ["undefined name", main("return nope"), "invalid program: <program>:2:10: undefined: nope"],
      [
        "unknown capability root",
        main("return stats.sum(x=1)"),
        "invalid program: <program>:2:10: undefined: stats",
      ],
      [
        "while is unavailable",
        main("while True:\n  pass\nreturn 1"),
        "invalid program: <program>:2:3: this Starlark dialect does not support while loops",
      ],
      [
        "duplicate keyword is a parse-time error",
        main("return records.lookup(key='a', key='b')"),
        "invalid program: <program>:2:34: keyword argument key repeated",
      ],
      [
        "load is disabled",
        'load("x.star", "y")\n' + main("return 1"),
        "invalid program: <program>:1:1: load statement not supported",
      ],
      ["no main", "x = 1\n", "invalid program"],
      ["main with an argument", "def main(x):\n  return x\n", "invalid program"],
      ["runtime error", main("return 1 // 0"), "invalid program"],
      ["fail()", main("fail('boom')"), "invalid program"],
      ["capability at top level", "X = time.now()\n" + main("return X"), "invalid program"],
      ["unconvertible final value", main("return len"), "invalid program"],
      ["final int beyond int64", main("return 1 << 63"), "invalid program"],
      ["final dict with int keys", main("return {1: 2}"), "invalid program"],
      [
        "set is unavailable",
        main("return set([1])"),
        "invalid program: <program>:2:10: undefined: set",
      ],
    ];
    for (const [what, source, want] of cases) {
      await t2.step(what, async () => {
        const got = errorOf(await c.call("execute", { source }));
        assert.equal(got.replace(/:\d+:\d+:/, ":L:C:"), want.replace(/:\d+:\d+:/, ":L:C:"));
        assert.ok(got.startsWith("invalid program"));
      });
    }
  } finally {
    await c.close();
  }
});
