import assert from "node:assert/strict";
import { PermissionDenied } from "../auth/authorizer.ts";
import { CapabilityRegistry } from "../capabilities/registry.ts";
import { t } from "../capabilities/schema.ts";
import { connect, errorOf, valueOf } from "./_test_support.ts";
import { main, testRegistry } from "./_execute_test_support.ts";

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
      "integral float for int (a float is never an int)",
      `echo.typed(${good}, small=2.0)`,
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
    await t2.step("float fields take integral floats and ints", async () => {
      for (const ratio of ["2.0", "2", "-0.0"]) {
        const source = main(
          `return echo.typed(filter={'owner': 'x'}, tags=[], labels={}, ratio=${ratio})`,
        );
        assert.deepEqual(valueOf(await c.call("execute", { source })), { result: { ok: true } });
      }
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

Deno.test("execute: float results stay floats in the program, even when integral", async () => {
  const registry = new CapabilityRegistry();
  registry.register({
    name: "stats.mean",
    summary: "mean",
    output: [
      t.field("mean", t.float64()),
      t.field("parts", t.list(t.float32())),
      t.field("by", t.dict(t.ptr(t.float64()))),
      t.field("inner", t.struct({ w: t.float64(), n: t.int() })),
      t.field("maybe", t.ptr(t.float64()), { omitEmpty: true }),
      t.field("count", t.int()),
    ],
    handler: () => ({
      mean: 2,
      parts: [1, 0.5],
      by: { a: 3, b: null },
      inner: { w: -0, n: 4 },
      count: 7,
    }),
  });
  const c = await connect({ registry });
  try {
    const source = main(
      "r = stats.mean()\n" +
        "return [type(r['mean']), str(r['mean']), [str(p) for p in r['parts']], str(r['by']['a']),\n" +
        "  r['by']['b'], str(r['inner']['w']), type(r['inner']['n']), type(r['count']), 'maybe' in r]",
    );
    assert.deepEqual(valueOf(await c.call("execute", { source })), {
      result: ["float", "2.0", ["1.0", "0.5"], "3.0", null, "-0.0", "int", "int", false],
    });
  } finally {
    await c.close();
  }
});
