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

/** Numeric literals, valid and invalid, with a sign and a trailing character. */
export const numberLiteralProgram: fc.Arbitrary<string> = fc.tuple(
  fc.constantFrom("", "-"),
  fc.constantFrom(
    "0",
    "00",
    "0x",
    "0X",
    "0o",
    "0O",
    "0b",
    "0B",
    "1",
    "7",
    "0755",
    "9",
    ".",
    "1.",
    ".5",
    "1e",
    "1e5",
    "1E+5",
    "1e-",
    "0x1F",
    "0xg",
    "0b102",
    "0o78",
    "1_0",
    "99999999999999999999999",
    "0x" + "f".repeat(30),
    "1.5e308",
    "1e309",
    "4e-330",
    "0.0",
    "00.5",
    "0e0",
    "08.5",
    "1j",
    "1L",
  ),
  fc.constantFrom("", "0", "5", ".", "e", "e1", "x", "_", "a", "9"),
).map(([sign, a, b]) => `def main():\n    return repr(${sign}${a}${b})\n`);

/** One valid program re-laid out: tabs, CRLF, comments, blank lines, continuations, semicolons. */
export const layoutProgram: fc.Arbitrary<string> = fc.tuple(
  fc.array(fc.constantFrom("tab", "crlf", "comment", "blank", "cont", "trail", "semicolon"), {
    maxLength: 4,
  }),
  fc.nat(),
).map(([edits, seed]) => {
  let lines = [
    "def f(a,",
    "      b):",
    "    if a:",
    "        return [a,",
    "                b]",
    "    else:",
    "        x = 1; y = 2",
    "        return x + y",
    "",
    "def main():",
    "    return [f(1, 2), f(0, 0)]",
  ];
  let at = seed;
  for (const edit of edits) {
    const i = at % lines.length;
    if (edit === "tab") {
      lines = lines.map((l, j) => j === i ? l.replace(/^ {8}/, "\t").replace(/^ {4}/, "\t") : l);
    }
    if (edit === "comment") lines.splice(i, 0, "  # comment");
    if (edit === "blank") lines.splice(i, 0, "   ");
    if (edit === "cont") lines[i] += " \\";
    if (edit === "trail") lines[i] += "   # t";
    if (edit === "semicolon") lines[i] += ";";
    at = at * 7 + 3;
  }
  return lines.join(edits.includes("crlf") ? "\r\n" : "\n") + "\n";
});
