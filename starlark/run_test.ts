import assert from "node:assert/strict";
import { parse, run, StarlarkError } from "./mod.ts";

Deno.test("run calls main and converts the result to JSON data", async () => {
  const r = await run('def main():\n  return {"a": [1, 2.5, None, True, "Ω"], "t": (1,)}\n');
  assert.deepEqual(r, {
    ok: true,
    value: { a: [1, 2.5, null, true, "Ω"], t: [1] },
    steps: r.ok ? r.steps : 0,
    hostCalls: 0,
  });
});

Deno.test("async host functions suspend and resume; each host call happens once", async () => {
  const calls: string[] = [];
  const r = await run(
    "def main():\n  out = []\n  for k in ['a', 'b', 'c']:\n    out.append(records.lookup(key=k))\n  return out\n",
    {
      predeclared: {
        records: {
          lookup: async (_args, kw) => {
            calls.push(String(kw.key));
            // real clock: a host call that suspends the interpreter on a timer
            await new Promise((res) => setTimeout(res, 1));
            return { key: kw.key };
          },
        },
      },
    },
  );
  assert.ok(r.ok);
  assert.deepEqual(r.value, [{ key: "a" }, { key: "b" }, { key: "c" }]);
  assert.deepEqual(calls, ["a", "b", "c"]);
  assert.equal(r.hostCalls, 3);
});

Deno.test("host errors surface as kind host with the thrown value as cause", async () => {
  const boom = new Error("boom");
  const r = await run("def main():\n  return h()\n", {
    predeclared: { h: () => Promise.reject(boom) },
  });
  assert.ok(!r.ok);
  assert.equal(r.error.kind, "host");
  assert.equal(r.error.code, "host_error");
  assert.equal(r.error.cause, boom);
  assert.equal(r.error.line, 2);
});

Deno.test("each budget fails with its own limit code", async () => {
  const loop = "def main():\n  for x in range(100000000):\n    pass\n";
  const codeOf = async (src: string, opts: Parameters<typeof run>[1]) => {
    const r = await run(src, opts);
    assert.ok(!r.ok);
    assert.equal(r.error.kind, "limit");
    return r.error.code;
  };
  assert.equal(await codeOf(loop, { budgets: { maxSteps: 1000 } }), "max_steps");
  assert.equal(await codeOf(loop, { budgets: { timeoutMs: 50 } }), "timeout");
  assert.equal(
    await codeOf("def main():\n  return [h() for i in range(5)]\n", {
      predeclared: { h: () => 1 },
      budgets: { maxHostCalls: 3 },
    }),
    "max_host_calls",
  );
  assert.equal(
    await codeOf("def main():\n  return [[[1]]]\n", { budgets: { maxDepth: 3 } }),
    "max_depth",
  );
  assert.equal(
    await codeOf("def main():\n  return 'x' * 2000\n", { budgets: { maxBytes: 1000 } }),
    "max_bytes",
  );
  assert.equal(
    await codeOf("def main():\n  return h()\n", {
      predeclared: { h: () => "x".repeat(5000) },
      budgets: { maxBytes: 1000 },
    }),
    "max_bytes",
  );
});

Deno.test("a pending host call is abandoned at the timeout", async () => {
  const r = await run("def main():\n  return h()\n", {
    predeclared: { h: () => new Promise(() => {}) },
    budgets: { timeoutMs: 30 },
  });
  assert.ok(!r.ok);
  assert.equal(r.error.code, "timeout");
});

Deno.test("static errors carry kind, code and position", async () => {
  const r = await run("x = 1\nx = 2\n");
  assert.ok(!r.ok);
  assert.deepEqual(
    { kind: r.error.kind, code: r.error.code, line: r.error.line, col: r.error.col },
    { kind: "resolve", code: "resolve_error", line: 2, col: 1 },
  );
  assert.throws(() => parse("def f(:\n"), StarlarkError);
});

Deno.test("topLevelHostCalls=false forbids host calls outside main; requireMain", async () => {
  const r = await run("x = h()\n", { predeclared: { h: () => 1 }, topLevelHostCalls: false });
  assert.ok(!r.ok);
  assert.equal(r.error.code, "host_call_not_allowed");
  const m = await run("x = 1\n", { requireMain: true });
  assert.ok(!m.ok);
  assert.equal(m.error.code, "no_main");
});

Deno.test("results outside int64 or non-finite are not convertible", async () => {
  for (
    const src of [
      "def main():\n  return 1 << 64\n",
      "def main():\n  return float('nan')\n",
      "def main():\n  return {1: 2}\n",
    ]
  ) {
    const r = await run(src);
    assert.ok(!r.ok);
    assert.equal(r.error.code, "result_not_convertible");
  }
});

Deno.test("a parsed program can be run repeatedly with fresh state", async () => {
  const p = parse("def main():\n  return n()\n", { predeclared: ["n"] });
  let i = 0;
  const a = await run(p, { predeclared: { n: () => ++i } });
  const b = await run(p, { predeclared: { n: () => ++i } });
  assert.ok(a.ok && b.ok);
  assert.deepEqual([a.value, b.value], [1, 2]);
});

Deno.test("heavy programs with async host calls continue in a worker without repeating calls", async () => {
  // ~30 000 steps between host calls: replays would exceed the replay budget quickly
  const src =
    "def main():\n  n = 0\n  for i in range(40):\n    for j in range(10000):\n      n += 1\n" +
    "    n += nap(i=i)\n  print('done', n)\n  return n\n";
  const seen: number[] = [];
  const printed: string[] = [];
  const r = await run(src, {
    predeclared: {
      nap: async (_a, kw) => {
        seen.push(kw.i as number);
        // real clock: a host call that yields one turn (no time waited)
        await new Promise((res) => setTimeout(res, 0));
        return 1;
      },
    },
    print: (line) => printed.push(line),
  });
  assert.ok(r.ok, JSON.stringify(r));
  assert.equal(r.value, 400040);
  assert.deepEqual(seen, [...Array(40).keys()]);
  assert.deepEqual(printed, ["done 400040"]);
});

Deno.test("host errors raised while running in the worker keep their cause", async () => {
  const boom = new Error("late boom");
  const src =
    "def main():\n  for i in range(300000):\n    pass\n  a = h(n=1)\n  b = h(n=2)\n  return h(n=3)\n";
  const r = await run(src, {
    predeclared: { h: (_a, kw) => (kw.n === 3 ? Promise.reject(boom) : Promise.resolve(kw.n)) },
  });
  assert.ok(!r.ok);
  assert.equal(r.error.code, "host_error");
  assert.equal(r.error.cause, boom);
  assert.equal(r.error.line, 6);
});

Deno.test("host results larger than the worker channel arrive in chunks", async () => {
  const big = "x".repeat(3_000_000) + "é";
  const src = "def main():\n  for i in range(300000):\n    pass\n  a = h()\n  b = h()\n" +
    "  return [len(a), len(b), a[-2:]]\n";
  const r = await run(src, { predeclared: { h: () => Promise.resolve(big) } });
  assert.ok(r.ok, JSON.stringify(r).slice(0, 300));
  assert.deepEqual(r.value, [3000002, 3000002, "é"]);
});
