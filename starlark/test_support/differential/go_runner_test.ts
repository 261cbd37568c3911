/** The Go reference runner itself: builds offline, speaks the dialect, classifies errors. */
import assert from "node:assert/strict";
import {
  buildGoRunner,
  type GoBatch,
  goRunnerMissing,
  parseGoJson,
  runGoFile,
  startGoBatch,
} from "./go_runner.ts";
import { skipSuite } from "@svc/testing";

const missing = goRunnerMissing();
const suffix = missing ? ` (ignored: ${missing})` : "";
const ignore = skipSuite({ module: import.meta.url, needs: missing?.replace(/^needs /, "") });

async function withBatch(fn: (go: GoBatch) => Promise<void>): Promise<void> {
  const go = startGoBatch(await buildGoRunner());
  try {
    await fn(go);
  } finally {
    await go.close();
  }
}

Deno.test("parseGoJson keeps ints beyond 2^53 exact and floats as numbers", () => {
  assert.deepEqual(parseGoJson("[1, 2.0, 12345678901234567890, 1e+06]"), [
    1,
    2,
    12345678901234567890n,
    1e6,
  ]);
});

Deno.test({
  name: `the Go runner calls main() and converts its value to JSON${suffix}`,
  ignore,
  fn: () =>
    withBatch(async (go) => {
      const r = await go.run({ src: 'def main():\n    return {"a": [1, 2.5, None, (True,)]}\n' });
      assert.deepEqual(r.value, { a: [1, 2.5, null, [true]] });
      assert.equal(r.repr, '{"a": [1, 2.5, None, (True,)]}');
      assert.ok(r.steps > 0);
    }),
});

Deno.test({
  name: `the Go runner has the dialect's universe: abs, sum, json, math, no set${suffix}`,
  ignore,
  fn: () =>
    withBatch(async (go) => {
      const ok = await go.run({
        src:
          "def main():\n    return [abs(-2), sum([1, 2], 3), json.encode([1]), math.floor(2.5), " +
          "math.log(8, 2), type(math.pi)]\n",
      });
      assert.deepEqual(ok.value, [2, 6, "[1]", 2, 3, "float"]);
      const set = await go.run({ src: "def main():\n    return set([1])\n" });
      assert.equal(set.errorClass, "resolve");
    }),
});

Deno.test({
  name: `the Go runner classifies syntax, resolve, runtime and conversion errors${suffix}`,
  ignore,
  fn: () =>
    withBatch(async (go) => {
      const cases: [string, string][] = [
        ["def main(:\n    pass\n", "syntax"],
        ["x = 1\nx = 2\n", "resolve"],
        ["for x in []:\n    pass\n", "resolve"],
        ["def main():\n    while True:\n        pass\n", "resolve"],
        ["def f():\n    return f()\ndef main():\n    return f()\n", "runtime"],
        ["def main():\n    return 1 // 0\n", "runtime"],
        ["def main():\n    return 1 << 64\n", "conversion"],
        ["def main():\n    return {1: 2}\n", "conversion"],
        ["def main():\n    return len\n", "conversion"],
      ];
      for (const [src, errorClass] of cases) {
        assert.equal((await go.run({ src })).errorClass, errorClass, src);
      }
    }),
});

Deno.test({
  name: `the Go runner enforces --max-steps and --timeout${suffix}`,
  ignore,
  async fn() {
    const binary = await buildGoRunner();
    const file = await Deno.makeTempFile({ suffix: ".star" });
    try {
      await Deno.writeTextFile(
        file,
        "def main():\n    for x in range(10000000000):\n        pass\n",
      );
      const steps = await runGoFile(binary, file, { maxSteps: 1000 });
      assert.equal(steps.errorClass, "steps");
      assert.ok(steps.steps >= 1000 && steps.steps < 1100);
      const start = performance.now();
      const timeout = await runGoFile(binary, file, { timeoutMs: 100 });
      assert.equal(timeout.errorClass, "timeout");
      assert.ok(performance.now() - start < 2000);
    } finally {
      await Deno.remove(file);
    }
  },
});
