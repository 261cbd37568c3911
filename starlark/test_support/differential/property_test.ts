/**
 * Property-based differential tests: fast-check generates programs, both interpreters run them,
 * results (value, or error class) must agree. Seeded, so every run checks the same programs;
 * STARLARK_FC_SEED / STARLARK_FC_RUNS explore further.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { parse, run, StarlarkError } from "../../mod.ts";
import { difference, fromGo, fromOurs } from "./compare.ts";
import {
  arithmeticProgram,
  builtinCallProgram,
  callBindingProgram,
  closureProgram,
  collectionProgram,
  floatFormatProgram,
  formatProgram,
  jsonDecodeFuzzProgram,
  jsonIndentFuzzProgram,
  jsonProgram,
  layoutProgram,
  literalProgram,
  mathProgram,
  methodArgsProgram,
  mutationProgram,
  numberLiteralProgram,
  numberParseProgram,
  stringProgram,
  syntaxProgram,
  valueOpsProgram,
} from "./generators/mod.ts";
import { knownBug } from "./known_bugs.ts";
import { newerThanReference } from "./newer.ts";
import { buildGoRunner, type GoBatch, goRunnerMissing, startGoBatch } from "./go_runner.ts";
import { skipSuite } from "@svc/testing";

const missing = goRunnerMissing();
const seed = Number(Deno.env.get("STARLARK_FC_SEED") ?? 20261122);
const runsScale = Number(Deno.env.get("STARLARK_FC_RUNS") ?? 1);
const RUN_KNOWN_BUGS = Deno.env.get("STARLARK_RUN_KNOWN_BUGS") === "1";

type Compare = {
  compareMessages?: boolean | "static";
  comparePositions?: boolean;
  floatUlps?: number;
};
/** Values, error classes, error texts and runtime-error positions. */
const FULL: Compare = { compareMessages: true, comparePositions: true };

const properties: {
  name: string;
  programs: fc.Arbitrary<string>;
  numRuns: number;
  compare: Compare;
  /** Ignored (with this reason) while it fails on a known difference; see BUGS.md. */
  knownBug?: string;
}[] = [
  {
    name: "arithmetic on big ints and floats",
    programs: arithmeticProgram,
    numRuns: 300,
    compare: FULL,
  },
  { name: "float formatting", programs: floatFormatProgram, numRuns: 200, compare: FULL },
  {
    name: "math functions (bit for bit)",
    programs: mathProgram,
    numRuns: 400,
    compare: FULL,
  },
  {
    name: "string operations, slicing and formatting",
    programs: stringProgram,
    numRuns: 400,
    compare: FULL,
  },
  {
    name: "list and dict comprehensions, sorted/min/max",
    programs: collectionProgram,
    numRuns: 300,
    compare: FULL,
  },
  { name: "json encode/decode round trips", programs: jsonProgram, numRuns: 200, compare: FULL },
  { name: "string literals and escapes", programs: literalProgram, numRuns: 400, compare: FULL },
  { name: "numeric literals", programs: numberLiteralProgram, numRuns: 300, compare: FULL },
  {
    name: "layout: tabs, CRLF, comments, continuations",
    programs: layoutProgram,
    numRuns: 200,
    compare: FULL,
  },
  {
    name: "json.indent of mutated JSON texts",
    programs: jsonIndentFuzzProgram,
    numRuns: 300,
    compare: FULL,
  },
  {
    name: "json.decode of mutated JSON texts",
    programs: jsonDecodeFuzzProgram,
    numRuns: 300,
    compare: FULL,
    knownBug: "BUGS.md 29",
  },

  {
    name: "%-formatting and str.format templates",
    programs: formatProgram,
    numRuns: 400,
    compare: FULL,
  },
  { name: "int() and float() parsing", programs: numberParseProgram, numRuns: 300, compare: FULL },
  {
    name: "methods with index arguments, ranges, cyclic values, key functions",
    programs: methodArgsProgram,
    numRuns: 400,
    compare: FULL,
  },
  {
    name: "list and dict mutation sequences",
    programs: mutationProgram,
    numRuns: 200,
    compare: FULL,
  },
  // Error positions of argument binding, `in`, dict literals and slices differ (BUGS.md 23).
  {
    name: "parameter binding in every call style",
    programs: callBindingProgram,
    numRuns: 300,
    compare: { compareMessages: true },
  },
  {
    name: "closures, defaults, frozen globals, mutation during iteration",
    programs: closureProgram,
    numRuns: 200,
    compare: { compareMessages: true },
  },
  {
    name: "operators over nested values of mixed types",
    programs: valueOpsProgram,
    numRuns: 400,
    compare: { compareMessages: true },
  },
  {
    name: "built-ins and methods called with arbitrary arguments",
    programs: builtinCallProgram,
    numRuns: 400,
    compare: FULL,
  },
  {
    name: "grammar-generated and mutated programs: same static error, same position",
    programs: syntaxProgram,
    numRuns: 400,
    compare: { compareMessages: "static" },
  },
];

async function agree(go: GoBatch, src: string, compare: Compare): Promise<void> {
  fc.pre(!newerThanReference(src) && knownBug(src) === undefined);
  const reference = await go.run({ src });
  // No reference answer when starlark-go itself crashes (an old compiler bug); skip the program.
  fc.pre(reference.errorClass !== "panic");
  const theirs = fromGo(reference);
  const ours = fromOurs(await run(src));
  const diff = difference(ours, theirs, compare);
  assert.equal(diff, undefined, `${diff}\nprogram:\n${src}`);
}

Deno.test({
  name: `generated programs agree with starlark-go${missing ? ` (ignored: ${missing})` : ""}`,
  ignore: skipSuite({
    module: import.meta.url,
    part: "against starlark-go",
    needs: missing?.replace(/^needs /, ""),
  }),
  async fn(t) {
    const go = startGoBatch(await buildGoRunner());
    try {
      for (const p of properties) {
        const ignored = p.knownBug && !RUN_KNOWN_BUGS;
        await t.step({
          name: ignored ? `${p.name} (ignored, known interpreter bug: ${p.knownBug})` : p.name,
          ignore: !!ignored,
          fn: () =>
            fc.assert(fc.asyncProperty(p.programs, (src) => agree(go, src, p.compare)), {
              seed,
              numRuns: Math.round(p.numRuns * runsScale),
            }),
        });
      }
    } finally {
      await go.close();
    }
  },
});

function parserMissing(): string | undefined {
  try {
    parse("def (");
    return "a parse() that checks programs";
  } catch {
    return undefined;
  }
}

const noParser = parserMissing() ?? goRunnerMissing();

Deno.test({
  name: `parse() reports starlark-go's first syntax error, at its position${
    noParser ? ` (ignored: ${noParser})` : ""
  }`,
  ignore: skipSuite({
    module: import.meta.url,
    part: "parse() errors",
    needs: noParser?.replace(/^needs /, ""),
  }),
  async fn() {
    const go = startGoBatch(await buildGoRunner());
    try {
      await fc.assert(
        fc.asyncProperty(syntaxProgram, async (src) => {
          fc.pre(!newerThanReference(src) && knownBug(src) === undefined);
          const theirs = await go.run({ src, maxSteps: 1 });
          fc.pre(theirs.errorClass !== "panic");
          let ours: string | undefined;
          try {
            parse(src);
          } catch (err) {
            if (!(err instanceof StarlarkError)) throw err;
            ours = err.kind === "syntax" ? err.message : undefined;
          }
          const expected = theirs.errorClass === "syntax" ? theirs.message : undefined;
          assert.equal(ours, expected, `program:\n${src}`);
        }),
        { seed, numRuns: Math.round(1000 * runsScale) },
      );
    } finally {
      await go.close();
    }
  },
});
