/** Grammar-generated programs, optionally mutated, for the scanner, parser and resolver. */
import fc from "fast-check";

const names = fc.constantFrom("a", "b", "x", "y", "f", "g", "len", "main", "undefined_q");
const atom = fc.oneof(
  names,
  fc.integer({ min: 0, max: 9 }).map(String),
  fc.constantFrom('"s"', "None", "True", "[]", "{}", "()", "1.5"),
);
const simpleExpr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    atom,
    fc.tuple(tie("e"), fc.constantFrom("+", "*", "==", "<", "and", "or", "in", "%"), tie("e"))
      .map(([a, op, b]) => `(${a} ${op} ${b})`),
    fc.tuple(names, fc.array(tie("e"), { maxLength: 2 })).map(([f, args]) =>
      `${f}(${args.join(", ")})`
    ),
    fc.tuple(tie("e"), tie("e")).map(([e, it]) => `[${e} for a in ${it}]`),
    fc.tuple(tie("e"), tie("e")).map(([k, v]) => `{${k}: ${v}}`),
    fc.tuple(tie("e"), tie("e"), tie("e")).map(([a, c, b]) => `(${a} if ${c} else ${b})`),
    tie("e").map((e) => `(lambda a: ${e})`),
    tie("e").map((e) => `(${e})`),
    fc.tuple(tie("e"), tie("e")).map(([a, i]) => `${a}[${i}]`),
    tie("e").map((e) => `(not ${e})`),
  ),
})).e;

function indent(lines: string[]): string[] {
  return lines.map((l) => "    " + l);
}

const statement: fc.Arbitrary<string[]> = fc.letrec<{ s: string[]; block: string[] }>((tie) => ({
  s: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.tuple(names, simpleExpr).map(([n, e]) => [`${n} = ${e}`]),
    fc.tuple(names, fc.constantFrom("+=", "-=", "*="), simpleExpr).map((
      [n, op, e],
    ) => [`${n} ${op} ${e}`]),
    fc.tuple(names, names, simpleExpr).map(([p, q, e]) => [`${p}, ${q} = ${e}`]),
    simpleExpr.map((e) => [`return ${e}`]),
    fc.constantFrom("pass", "break", "continue", "return").map((k) => [k]),
    fc.tuple(simpleExpr, tie("block"), fc.option(tie("block"))).map((
      [c, a, b],
    ) => [`if ${c}:`, ...indent(a), ...(b ? ["else:", ...indent(b)] : [])]),
    fc.tuple(names, fc.integer({ min: 0, max: 4 }), tie("block")).map((
      [n, k, body],
    ) => [`for ${n} in range(${k}):`, ...indent(body)]),
    fc.tuple(names, fc.constantFrom("", "a", "a, b=1", "*args", "a, *, b"), tie("block")).map((
      [n, params, body],
    ) => [`def ${n}(${params}):`, ...indent(body)]),
  ),
  block: fc.array(tie("s"), { minLength: 1, maxLength: 3 }).map((ss) => ss.flat()),
})).s;

/** Mutations that usually make a program invalid in an interesting place. */
const mutation = fc.tuple(
  fc.nat(),
  fc.constantFrom(
    "",
    "(",
    ")",
    ":",
    ",",
    "=",
    "[",
    "]",
    "\n",
    "  ",
    "\t",
    "\\",
    "'",
    "#",
    "1",
    "def",
    "**",
  ),
  fc.integer({ min: 0, max: 3 }),
);

/**
 * Small programs from a statement grammar (top-level assignments and defs, nested blocks,
 * comprehensions, lambdas), optionally mutated by inserting or deleting characters: exercises
 * the scanner, parser and resolver (which error, where) as well as evaluation.
 */
export const syntaxProgram: fc.Arbitrary<string> = fc.tuple(
  fc.array(
    fc.oneof(
      fc.tuple(names, simpleExpr).map(([n, e]) => [`${n} = ${e}`]),
      fc.tuple(
        names,
        fc.constantFrom("", "a", "a=1, *b"),
        fc.array(statement, { minLength: 1, maxLength: 3 }),
      )
        .map(([n, params, body]) => [`def ${n}(${params}):`, ...indent(body.flat())]),
      statement,
    ),
    { maxLength: 4 },
  ),
  fc.array(statement, { minLength: 1, maxLength: 4 }),
  fc.option(mutation, { freq: 2 }),
).map(([top, body, mut]) => {
  let src = [...top.flat(), "def main():", ...indent(body.flat())].join("\n") + "\n";
  if (mut) {
    const [at, insert, remove] = mut;
    const i = at % (src.length + 1);
    src = src.slice(0, i) + insert + src.slice(i + remove);
  }
  return src;
});
