/**
 * Differential tests: the hand-written corpus through our interpreter and through starlark-go
 * (our Go runner), compared value for value and error for error.
 */
import assert from "node:assert/strict";
import { run } from "../../mod.ts";
import { difference, fromGo, fromOurs, type Outcome } from "./compare.ts";
import { CORPUS, type CorpusCase } from "./corpus/mod.ts";
import { buildGoRunner, goRunnerMissing, startGoBatch } from "./go_runner.ts";
import { KNOWN_BUGS } from "./known_bugs.ts";
import { skipSuite } from "@svc/testing";

const missing = goRunnerMissing();

/** A case's outcome in the newest starlark-go, which the reference runner predates. */
function newest(o: NonNullable<CorpusCase["newest"]>): Outcome {
  return "value" in o
    ? { ok: true, value: o.value, steps: 0 }
    : { ok: false, errorClass: "runtime", ...o, steps: 0 };
}

Deno.test({
  name: `corpus programs give starlark-go's values and errors${
    missing ? ` (ignored: ${missing})` : ""
  }`,
  ignore: skipSuite({ module: import.meta.url, needs: missing?.replace(/^needs /, "") }),
  async fn(t) {
    const go = startGoBatch(await buildGoRunner());
    try {
      for (const c of CORPUS) {
        const bug = Deno.env.get("STARLARK_RUN_KNOWN_BUGS") === "1"
          ? undefined
          : KNOWN_BUGS[c.name];
        await t.step({
          name: bug ? `${c.name} (ignored, known interpreter bug: ${bug})` : c.name,
          ignore: bug !== undefined,
          async fn() {
            const ours = fromOurs(await run(c.src));
            const theirs = c.newest ? newest(c.newest) : fromGo(await go.run({ src: c.src }));
            if (c.classMayDiffer) {
              assert.equal(
                ours.ok,
                false,
                `expected an error like starlark-go's ${theirs.message}`,
              );
              assert.equal(theirs.ok, false);
              return;
            }
            const diff = difference(ours, theirs, {
              compareMessages: !c.messageMayDiffer,
              comparePositions: !c.positionMayDiffer,
            });
            assert.equal(diff, undefined, diff);
          },
        });
      }
    } finally {
      await go.close();
    }
  },
});

Deno.test("corpus programs use the same number of steps on every run", async () => {
  for (const c of CORPUS) {
    const first = fromOurs(await run(c.src));
    const second = fromOurs(await run(c.src));
    assert.equal(second.steps, first.steps, c.name);
  }
});

Deno.test("steps grow linearly with loop length, like starlark-go's TestExecutionSteps", async () => {
  const src = (n: number) => `def main():\n    return [x * x for x in range(${n})]\n`;
  const small = await run(src(1000));
  const large = await run(src(100_000));
  assert.ok(small.ok && large.ok);
  const ratio = large.steps / small.steps;
  assert.ok(ratio > 90 && ratio < 110, `steps ratio ${ratio} for 100x the work`);
});
