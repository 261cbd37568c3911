/**
 * Issue 26, item 1: every int parameter at the bounds of Go's int types behaves and fails as in
 * starlark-go (values, error texts), the grid exhaustively and random ints around the bounds
 * seeded (STARLARK_FC_SEED / STARLARK_FC_RUNS explore further).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { run } from "../../mod.ts";
import { difference, fromGo, fromOurs } from "./compare.ts";
import {
  INT_BOUNDS,
  INT_PARAM_TEMPLATES,
  intParamBoundaryProgram,
  intParamProgram,
  isSliceTemplate,
} from "./generators/int_params.ts";
import { buildGoRunner, goRunnerMissing, startGoBatch } from "./go_runner.ts";

const missing = goRunnerMissing();
const seed = Number(Deno.env.get("STARLARK_FC_SEED") ?? 20261126);
const runsScale = Number(Deno.env.get("STARLARK_FC_RUNS") ?? 1);
/** Values and error texts; positions too, except of slice errors (BUGS.md 23). */
function compare(src: string) {
  return { compareMessages: true, comparePositions: !isSliceTemplate(src) };
}

Deno.test({
  name: `int parameters at ±2^31, ±2^53, ±2^63 agree with starlark-go${
    missing ? ` (ignored: ${missing})` : ""
  }`,
  ignore: missing !== undefined,
  async fn() {
    const go = startGoBatch(await buildGoRunner());
    const differences: string[] = [];
    let programs = 0;
    try {
      for (const t of INT_PARAM_TEMPLATES) {
        for (const n of INT_BOUNDS) {
          const src = intParamProgram(t, n);
          const theirs = fromGo(await go.run({ src }));
          const ours = fromOurs(await run(src));
          const diff = difference(ours, theirs, compare(src));
          if (diff) differences.push(`${diff}\nprogram:\n${src}`);
          programs++;
        }
      }
    } finally {
      await go.close();
    }
    assert.equal(programs, INT_PARAM_TEMPLATES.length * INT_BOUNDS.length);
    assert.deepEqual(differences, []);
  },
});

Deno.test({
  name: `random ints around the int32/int64 bounds agree with starlark-go${
    missing ? ` (ignored: ${missing})` : ""
  }`,
  ignore: missing !== undefined,
  async fn() {
    const go = startGoBatch(await buildGoRunner());
    try {
      await fc.assert(
        fc.asyncProperty(intParamBoundaryProgram, async (src) => {
          const theirs = fromGo(await go.run({ src }));
          const ours = fromOurs(await run(src));
          const diff = difference(ours, theirs, compare(src));
          assert.equal(diff, undefined, `${diff}\nprogram:\n${src}`);
        }),
        { seed, numRuns: Math.round(600 * runsScale) },
      );
    } finally {
      await go.close();
    }
  },
});

/**
 * uint8 (`AsInt` into a Go byte): `bytes([n])` and `n in b"..."`. Debian's starlark-go has no
 * bytes, so the expected texts are newer starlark-go's (`starlark/library.go` `bytes_`,
 * `value.go` `Bytes.Has`).
 */
Deno.test("uint8 parameters fail as newer starlark-go does at every bound", async () => {
  for (const n of [...INT_BOUNDS, 255n, 256n]) {
    const inRange = n >= 0n && n <= 255n;
    const made = await run(`def main():\n    return list(bytes([${n}]).elems())\n`);
    const found = await run(`def main():\n    return ${n} in b"\\x03"\n`);
    if (inRange) {
      assert.ok(made.ok && found.ok, String(n));
      assert.deepEqual(made.value, [Number(n)]);
      assert.equal(found.value, n === 3n);
      continue;
    }
    const why = `${n} out of range (want value in unsigned 8-bit range)`;
    assert.equal(made.ok ? made.value : made.error.message, `bytes: at index 0, ${why}`);
    assert.equal(found.ok ? found.value : found.error.message, `int in bytes: ${why}`);
  }
});
