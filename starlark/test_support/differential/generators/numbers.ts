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

/** The `math` module's one-argument functions (`log` takes a base too: `MATH_BINARY` aside). */
export const MATH_UNARY: readonly string[] = [
  "acos",
  "acosh",
  "asin",
  "asinh",
  "atan",
  "atanh",
  "ceil",
  "cos",
  "cosh",
  "degrees",
  "exp",
  "fabs",
  "floor",
  "gamma",
  "log",
  "radians",
  "round",
  "sin",
  "sinh",
  "sqrt",
  "tan",
  "tanh",
];

/** The `math` module's two-argument functions, `log`'s base form aside. */
export const MATH_BINARY: readonly string[] = [
  "atan2",
  "copysign",
  "hypot",
  "mod",
  "pow",
  "remainder",
];

/**
 * Every math function on ordinary and extreme inputs, compared bit for bit with Go's `math`.
 */
export const mathProgram: fc.Arbitrary<string> = fc.tuple(
  fc.constantFrom(...MATH_UNARY, ...MATH_BINARY),
  fc.oneof(
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e3, max: 1e3 }),
    fc.constantFrom(0, -0, 1, -1, 0.5, 2, 1e308, 1e-300, 700, -700, 170.5, 0.1),
  ),
  fc.oneof(
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -50, max: 50 }),
    fc.constantFrom(0, 1, -1, 2, 0.5),
  ),
)
  // No filter: `lib/go_math/` computes Go's own bits, its quirks included (subnormal Log, Sinh/Cosh
  // overflowing just below the true bound).
  .map(([f, x, y]) => {
    const binary = MATH_BINARY.includes(f);
    return program(`return math.${f}(${floatLiteral(x)}${binary ? ", " + floatLiteral(y) : ""})`);
  });
