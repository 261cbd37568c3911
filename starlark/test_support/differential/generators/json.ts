/** Generators of json.encode/decode/indent programs. */
import fc from "fast-check";
import {
  alphabet,
  float,
  floatLiteral,
  int,
  intLiteral,
  program,
  starlarkString,
  str,
} from "./literals.ts";

/** A Starlark literal for JSON-like data. */
function literal(v: unknown): string {
  if (v === null) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "bigint") return intLiteral(v);
  if (typeof v === "number") return floatLiteral(v);
  if (typeof v === "string") return starlarkString(v);
  if (Array.isArray(v)) return `[${v.map(literal).join(", ")}]`;
  const entries = Object.entries(v as Record<string, unknown>);
  return `{${entries.map(([k, x]) => `${starlarkString(k)}: ${literal(x)}`).join(", ")}}`;
}

const jsonish: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    int,
    float,
    fc.string({
      unit: fc.oneof(alphabet, fc.constantFrom('"', "\\", "<", ">", "&", "/")),
      maxLength: 8,
    }),
    fc.array(tie("v"), { maxLength: 4 }),
    fc.dictionary(str, tie("v"), { maxKeys: 4 }),
  ),
})).v;

/** JSON encode/decode/indent round trips of generated values, and decoding of JSON texts. */
export const jsonProgram: fc.Arbitrary<string> = fc.oneof(
  jsonish.map((v) =>
    program(
      `v = ${literal(v)}\ntext = json.encode(v)\nback = json.decode(text)\n` +
        `return [text, repr(back), back == v, json.indent(text, indent="  ")]`,
    )
  ),
  fc.json({ maxDepth: 3 }).map((text) =>
    program(`return repr(json.decode(${starlarkString(text)}))`)
  ),
);

function mutatedJson(f: "decode" | "indent"): fc.Arbitrary<string> {
  return fc.tuple(
    fc.json({ maxDepth: 2 }),
    fc.nat(),
    fc.constantFrom(
      "",
      ",",
      "]",
      "}",
      "{",
      "[",
      '"',
      ":",
      "-",
      "0",
      "e",
      ".",
      "\\",
      "\\u12",
      " ",
      "\t",
      "tru",
      "nul",
      "01",
      "1e",
      "+1",
      "\u2028",
      "é",
    ),
    fc.integer({ min: 0, max: 2 }),
  ).map(([text, at, insert, remove]) => {
    const i = at % (text.length + 1);
    const mutated = text.slice(0, i) + insert + text.slice(i + remove);
    return program(`return repr(json.${f}(${starlarkString(mutated)}))`);
  });
}

/** Mutated JSON texts through `json.indent`: validation and error texts of Go's scanner. */
export const jsonIndentFuzzProgram: fc.Arbitrary<string> = mutatedJson("indent");

/** Mutated JSON texts through `json.decode`: validation, offsets and error texts. */
export const jsonDecodeFuzzProgram: fc.Arbitrary<string> = mutatedJson("decode");
