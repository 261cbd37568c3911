import assert from "node:assert/strict";
import { parseArgs, parseTimeout, render } from "./cli.ts";

Deno.test("cli parses budget flags and Go durations", () => {
  assert.deepEqual(
    parseArgs(["--max-steps", "10", "--timeout=1m30s", "--max-bytes", "5", "--steps", "f.star"]),
    {
      file: "f.star",
      budgets: { maxSteps: 10, timeoutMs: 90000, maxBytes: 5 },
      printSteps: true,
    },
  );
  assert.deepEqual(
    parseArgs(["--max-alloc", "1048576", "--max-steps=unlimited", "--timeout", "unlimited", "f"])
      .budgets,
    { maxAllocBytes: 1048576, maxSteps: Infinity, timeoutMs: Infinity },
  );
  assert.throws(() => parseArgs(["--max-alloc", "-1", "f"]), /non-negative integer/);
  assert.equal(parseTimeout("250"), 250);
  assert.equal(parseTimeout("1h2m3.5s"), 3_723_500);
  assert.equal(parseTimeout("300us"), 0.3);
  assert.throws(() => parseTimeout(""), RangeError);
  assert.throws(() => parseTimeout("-1s"), RangeError);
  assert.equal(parseTimeout("1.5s"), 1500);
  assert.throws(() => parseTimeout("5 parsecs"), RangeError);
  assert.throws(() => parseArgs([]), /missing FILE/);
});

Deno.test("cli renders big ints exactly and errors with a traceback", () => {
  assert.deepEqual(render({ ok: true, value: { n: 2n ** 62n }, steps: 3, hostCalls: 0 }, true), [
    '{"n":4611686018427387904}\n',
    "steps: 3\n",
    0,
  ]);
  const [, err, code] = render({
    ok: false,
    error: {
      kind: "runtime",
      code: "eval_error",
      message: "boom",
      steps: 1,
      backtrace: ["f:1:1: in main"],
    },
  }, false);
  assert.equal(code, 1);
  assert.ok(err.includes("Traceback (most recent call last):\n  f:1:1: in main\nError: boom"));
});

Deno.test("cli ends an infinite loop with no flags, and reports max_alloc", async () => {
  const file = await Deno.makeTempFile({ suffix: ".star" });
  const cli = new URL("./cli.ts", import.meta.url).pathname;
  try {
    await Deno.writeTextFile(
      file,
      "def main():\n  for x in range(1000000000):\n    for y in range(1000000000):\n      pass\n",
    );
    const loop = await new Deno.Command(Deno.execPath(), { args: ["run", "-A", cli, file] })
      .output();
    assert.equal(loop.code, 1);
    assert.match(new TextDecoder().decode(loop.stderr), /cancelled: (too many steps|timeout)/);
    await Deno.writeTextFile(file, "def main():\n  return [[i] for i in range(100000)]\n");
    const big = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", cli, "--max-alloc", "100000", file],
    }).output();
    assert.equal(big.code, 1);
    assert.match(new TextDecoder().decode(big.stderr), /allocation budget of 100000 bytes/);
  } finally {
    await Deno.remove(file);
  }
});

Deno.test("cli runs a file end to end", async () => {
  const file = await Deno.makeTempFile({ suffix: ".star" });
  try {
    await Deno.writeTextFile(file, "def main():\n  return sorted([3, 1, 2])\n");
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-read", new URL("./cli.ts", import.meta.url).pathname, "--steps", file],
    }).output();
    assert.equal(out.code, 0);
    assert.equal(new TextDecoder().decode(out.stdout), "[1,2,3]\n");
    assert.match(new TextDecoder().decode(out.stderr), /^steps: \d+\n$/);
  } finally {
    await Deno.remove(file);
  }
});
