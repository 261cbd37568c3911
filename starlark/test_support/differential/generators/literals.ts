/** Starlark literals for generated data, and the value pools the generators share. */
import fc from "fast-check";

/** A Starlark double-quoted literal for `s` (source is UTF-8, so non-ASCII stays raw). */
export function starlarkString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === "\\" || ch === '"') out += "\\" + ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else if (c < 0x20 || c === 0x7f) out += "\\x" + c.toString(16).padStart(2, "0");
    else out += ch;
  }
  return out + '"';
}

/** A float literal denoting exactly `x` (finite); negative values parenthesised. */
export function floatLiteral(x: number): string {
  let s = String(Math.abs(x));
  if (!/[.e]/.test(s)) s += ".0";
  return x < 0 || Object.is(x, -0) ? `(-${s})` : s;
}

export function intLiteral(x: bigint): string {
  return x < 0n ? `(${x})` : String(x);
}

export function program(body: string): string {
  return "def main():\n" + body.split("\n").map((l) => "    " + l).join("\n") + "\n";
}

const interestingFloats = fc.constantFrom(
  0.1,
  0.5,
  1.5,
  2.0,
  1e10,
  1e-7,
  3.14159,
  1e300,
  123456.789,
  0,
  1e6,
  1e-5,
  2 ** 53,
  1 / 3,
  5e-324,
);
export const float = fc.oneof(
  interestingFloats,
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e20, max: 1e20 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
export const int = fc.oneof(
  fc.bigInt({ min: -1000n, max: 1000n }),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
  fc.bigInt({ min: -(2n ** 200n), max: 2n ** 200n }),
);

export const alphabet = fc.constantFrom(
  ..."abcxyzAB ,.-_:%{}01 \n\t".split(""),
  "é",
  "€",
  "😀",
  "ß",
  "ǅ",
  "İ",
  "\u2028",
  "\x01",
);
export const str = fc.string({ unit: alphabet, maxLength: 12 });
export const smallIndex = fc.integer({ min: -8, max: 8 });

export const valuePool = fc.constantFrom(
  "None",
  "True",
  "False",
  "0",
  "1",
  "-7",
  "255",
  "1 << 70",
  "0.0",
  "-2.5",
  "1e300",
  'float("nan")',
  '""',
  '"abc"',
  '"a,b,,c"',
  '"  Mixed Case  "',
  '"%s-%d"',
  '"{}{x}"',
  '"12"',
  '"0x1f"',
  '" -3 "',
  '"é"',
  "[]",
  "[3, 1, 2]",
  '["b", "a"]',
  "()",
  "(1, 2)",
  '{"k": 1}',
  "{}",
  "range(5)",
  "len",
  '"1.5e3"',
);
