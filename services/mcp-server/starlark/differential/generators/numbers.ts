/** Generators of numeric programs: arithmetic, float formatting, number parsing. */
import fc from "fast-check";
import { float, floatLiteral, int, intLiteral, program, starlarkString } from "./literals.ts";

/** Arithmetic over big ints and floats: operators, unary ops, conversions, comparisons. */
export const arithmeticProgram: fc.Arbitrary<string> = (() => {
  const { expr } = fc.letrec<{ expr: string }>((tie) => ({
    expr: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      int.map(intLiteral),
      float.map(floatLiteral),
      fc.tuple(
        tie("expr"),
        fc.constantFrom("+", "-", "*", "/", "//", "%", "&", "|", "^"),
        tie("expr"),
      ).map(([a, op, b]) => `(${a} ${op} ${b})`),
      fc.tuple(tie("expr"), fc.constantFrom("<<", ">>"), fc.integer({ min: 0, max: 70 }))
        .map(([a, op, k]) => `(${a} ${op} ${k})`),
      fc.tuple(fc.constantFrom("-", "~", "+"), tie("expr")).map(([op, a]) => `(${op}${a})`),
      fc.tuple(fc.constantFrom("abs", "int", "float", "bool"), tie("expr"))
        .map(([f, a]) => `${f}(${a})`),
    ),
  }));
  const compare = fc.tuple(expr, fc.constantFrom("<", "<=", "==", "!=", ">", ">="), expr)
    .map(([a, op, b]) => `${a} ${op} ${b}`);
  return fc.oneof(expr, compare).map((e) => program(`x = ${e}\nreturn [repr(x), type(x)]`));
})();

/** Float formatting: str, repr, %-conversions, int/float conversions of one float. */
export const floatFormatProgram: fc.Arbitrary<string> = float.map((x) =>
  program(
    `x = ${floatLiteral(x)}\n` +
      `return [str(x), repr(x), "%g|%e|%E|%G" % (x, x, x, x), "%f" % x if abs(x) < 1e30 else "", ` +
      `str(int(x)), x == int(x), float(str(x)) == x, str(-x), json.encode(x)]`,
  )
);

/** int() and float() parsing of generated text, with and without a base. */
export const numberParseProgram: fc.Arbitrary<string> = fc.tuple(
  fc.string({
    unit: fc.constantFrom(..."0123456789abcdefxXoObB_+- .eEiInNfF".split("")),
    maxLength: 8,
  }),
  fc.constantFrom("", ", 0", ", 2", ", 8", ", 10", ", 16", ", 36", ", 1", ", 37"),
  fc.constantFrom("int", "float"),
).map(([text, base, f]) =>
  program(`return repr(${f}(${starlarkString(text)}${f === "int" ? base : ""}))`)
);
