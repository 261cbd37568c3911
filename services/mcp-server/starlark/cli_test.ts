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
  assert.equal(parseTimeout("250"), 250);
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
