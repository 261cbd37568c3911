import assert from "node:assert/strict";
import type { CapabilityRegistry } from "../capabilities/registry.ts";
import { t } from "../capabilities/schema.ts";
import { PermissionDenied } from "../auth/authorizer.ts";
import { AgentError } from "./agent_error.ts";
import { connect, errorOf, sampleRegistry, valueOf } from "./_test_support.ts";

const main = (body: string) => `def main():\n${body.split("\n").map((l) => `  ${l}`).join("\n")}\n`;

function testRegistry(): CapabilityRegistry {
  const registry = sampleRegistry();
  registry.register({
    name: "echo.nested",
    summary: "echo",
    input: t.fields({ v: t.list(t.list(t.list(t.int()))) }),
    output: t.fields({ v: t.list(t.list(t.list(t.int()))) }),
    handler: ({ v }) => ({ v }),
  });
  registry.register({
    name: "echo.text",
    summary: "echo",
    input: t.fields({ s: t.str() }),
    output: t.fields({ s: t.str() }),
    handler: ({ s }) => ({ s }),
  });
  registry.register({
    name: "echo.typed",
    summary: "typed",
    input: t.fields({
      filter: t.struct({ owner: t.str() }),
      tags: t.list(t.str()),
      labels: t.dict(t.str()),
      small: t.ptr(t.uint8()),
      ratio: t.ptr(t.float32()),
    }),
    output: t.fields({ ok: t.bool() }),
    handler: () => ({ ok: true }),
  });
  registry.register({
    name: "broken.agent",
    summary: "fails",
    input: t.fields({ msg: t.str() }),
    handler: ({ msg }) => {
      throw new AgentError(msg as string);
    },
  });
  registry.register({
    name: "broken.returned",
    summary: "returns an agent error",
    handler: () => new AgentError("returned"),
  });
  registry.register({
    name: "broken.plain",
    summary: "fails",
    handler: () => {
      throw new Error("secret database detail");
    },
  });
  registry.register({
    name: "broken.nan",
    summary: "bad float",
    output: t.fields({ x: t.float64() }),
    handler: () => ({ x: NaN }),
  });
  registry.register({
    name: "broken.unsigned",
    summary: "bad uint",
    output: t.fields({ x: t.uint64() }),
    handler: () => ({ x: 1n << 63n }),
  });
  return registry;
}

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

Deno.test("execute: invalid capability arguments with nested-path diagnostics", async (t2) => {
  const c = await connect({ registry: testRegistry() });
  const good = "filter={'owner': 'me'}, tags=['a'], labels={'env': 'x'}";
  const cases: Array<[string, string, string]> = [
    [
      "positional",
      "records.lookup('a')",
      "invalid capability arguments: records.lookup accepts keyword arguments only (1 positional given)",
    ],
    [
      "unknown",
      "records.lookup(key='a', nope=1)",
      "invalid capability arguments: unexpected keyword argument nope",
    ],
    ["missing", "records.lookup()", "invalid capability arguments: missing argument key"],
    ["wrong type", "records.lookup(key=1)", "invalid capability arguments: key: got int, want str"],
    [
      "nested field",
      "echo.typed(filter={'owner': 1}, tags=[], labels={})",
      "invalid capability arguments: filter.owner: got int, want str",
    ],
    [
      "list index",
      "echo.typed(filter={'owner': 'x'}, tags=['a', 2], labels={})",
      "invalid capability arguments: tags[1]: got int, want str",
    ],
    [
      "dict key",
      "echo.typed(filter={'owner': 'x'}, tags=[], labels={'env': 3})",
      "invalid capability arguments: labels['env']: got int, want str",
    ],
    [
      "out of range",
      `echo.typed(${good}, small=256)`,
      "invalid capability arguments: small: 256 out of range (0 to 255)",
    ],
    [
      "negative unsigned",
      `echo.typed(${good}, small=-1)`,
      "invalid capability arguments: small: -1 out of range (0 to 255)",
    ],
    [
      "float for int",
      `echo.typed(${good}, small=1.5)`,
      "invalid capability arguments: small: got float, want int",
    ],
    [
      "float32 range",
      `echo.typed(${good}, ratio=1e39)`,
      "invalid capability arguments: ratio: 1e+39 out of float32 range",
    ],
    ["non-finite float", `echo.typed(${good}, ratio=float('inf'))`, "invalid capability arguments"],
    [
      "dict with a non-string key",
      "echo.typed(filter={'owner': 'x'}, tags=[], labels={1: 'a'})",
      "invalid capability arguments",
    ],
    [
      "bytes value for a list field",
      "echo.typed(filter={'owner': 'x'}, tags=b'ab', labels={})",
      "invalid capability arguments",
    ],
    [
      "tuple is accepted as list; unknown struct key",
      "echo.typed(filter={'owner': 'x', 'y': 1}, tags=('a',), labels={})",
      "invalid capability arguments: filter: unknown field 'y'",
    ],
  ];
  try {
    for (const [what, call, want] of cases) {
      await t2.step(what, async () => {
        const got = errorOf(await c.call("execute", { source: main(`return ${call}`) }));
        if (want === "invalid capability arguments") assert.ok(got.startsWith(want), got);
        else assert.equal(got, want);
      });
    }
    await t2.step("valid call with tuple and optional pointers", async () => {
      const source = main(
        `return echo.typed(filter={'owner': 'x'}, tags=('a',), labels={}, small=255, ratio=None)`,
      );
      assert.deepEqual(valueOf(await c.call("execute", { source })), { result: { ok: true } });
    });
  } finally {
    await c.close();
  }
});

Deno.test("execute: authorization sees canonical arguments", async (t2) => {
  const seen: unknown[] = [];
  const c = await connect({
    registry: testRegistry(),
    authorizer: ({ subject, capability, arguments: args }) => {
      seen.push({ subject: subject.id, capability, args });
      if (capability === "records.list") throw new PermissionDenied();
      if (capability === "time.now") throw new Error("policy engine down");
      return args.key !== "b";
    },
  });
  try {
    await t2.step("allowed", async () => {
      valueOf(await c.call("execute", { source: main("return records.lookup(key='a')") }));
      assert.deepEqual(seen.at(-1), {
        subject: "tester",
        capability: "records.lookup",
        args: { key: "a" },
      });
    });
    await t2.step("denied by returning false", async () => {
      assert.equal(
        errorOf(await c.call("execute", { source: main("return records.lookup(key='b')") })),
        "permission denied",
      );
    });
    await t2.step("denied by PermissionDenied; nil pointers omitted", async () => {
      assert.equal(
        errorOf(await c.call("execute", { source: main("return records.list(prefix=None)") })),
        "permission denied",
      );
      assert.deepEqual(seen.at(-1), { subject: "tester", capability: "records.list", args: {} });
    });
    await t2.step("policy failure", async () => {
      assert.equal(
        errorOf(await c.call("execute", { source: main("return time.now()") })),
        "authorization policy failure",
      );
    });
  } finally {
    await c.close();
  }
});

Deno.test("execute: capability failures", async (t2) => {
  const c = await connect({ registry: testRegistry() });
  const long = "é".repeat(200); // 400 bytes
  const cases: Array<[string, string, string]> = [
    ["agent error", "broken.agent(msg='no such row')", "capability failed: no such row"],
    ["returned agent error", "broken.returned()", "capability failed: returned"],
    ["empty agent message", "broken.agent(msg='')", "capability failed"],
    [
      "control characters become spaces",
      "broken.agent(msg='a\\nb\\tc\\x00d')",
      "capability failed: a b c d",
    ],
    [
      "truncated on a rune boundary to 256 bytes",
      `broken.agent(msg='${long}')`,
      `capability failed: ${"é".repeat(126)}...`,
    ],
    [
      "exactly 256 bytes is kept",
      `broken.agent(msg='${"x".repeat(256)}')`,
      `capability failed: ${"x".repeat(256)}`,
    ],
    [
      "257 bytes is cut",
      `broken.agent(msg='${"x".repeat(257)}')`,
      `capability failed: ${"x".repeat(253)}...`,
    ],
    ["plain handler error hides its detail", "broken.plain()", "capability failed"],
    ["non-finite float result", "broken.nan()", "capability failed"],
    ["unsigned above int64 result", "broken.unsigned()", "capability failed"],
  ];
  try {
    for (const [what, call, want] of cases) {
      await t2.step(what, async () => {
        assert.equal(errorOf(await c.call("execute", { source: main(`return ${call}`) })), want);
      });
    }
  } finally {
    await c.close();
  }
});
