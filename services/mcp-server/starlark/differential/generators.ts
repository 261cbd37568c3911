/**
 * fast-check generators of Starlark programs for the property-based differential tests.
 * Every generator yields complete source text with a `main()` whose result both runners compare.
 */
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

function intLiteral(x: bigint): string {
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
const float = fc.oneof(
  interestingFloats,
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e20, max: 1e20 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const int = fc.oneof(
  fc.bigInt({ min: -1000n, max: 1000n }),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
  fc.bigInt({ min: -(2n ** 200n), max: 2n ** 200n }),
);

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

const alphabet = fc.constantFrom(
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
const str = fc.string({ unit: alphabet, maxLength: 12 });
const smallIndex = fc.integer({ min: -8, max: 8 });

/** String operations with byte semantics, slicing with steps, methods and formatting. */
export const stringProgram: fc.Arbitrary<string> = fc.tuple(
  str,
  str,
  str.filter((s) => s.length > 0),
  smallIndex,
  smallIndex,
  fc.constantFrom("None", "1", "2", "-1", "-2", "3"),
  fc.integer({ min: 0, max: 3 }),
  fc.constantFrom(
    "s.upper()",
    "s.lower()",
    "s.title()",
    "s.capitalize()",
    "s.strip()",
    "s.lstrip(t)",
    "s.rstrip(t)",
    "s.split(sep)",
    "s.split()",
    "s.rsplit(sep, 1)",
    "s.split(sep, 1)",
    "s.replace(sep, t)",
    "s.find(sep)",
    "s.rfind(sep)",
    "s.count(sep)",
    "s.startswith(t)",
    "s.endswith((t, sep))",
    "s.partition(sep)",
    "s.rpartition(sep)",
    "s.splitlines()",
    "s.isalpha()",
    "s.isalnum()",
    "s.isdigit()",
    "s.isspace()",
    "s.islower()",
    "s.isupper()",
    "s.istitle()",
    "list(s.elems())",
    "list(s.codepoints())",
    "list(s.codepoint_ords())",
    "list(s.elem_ords())",
    "sep.join([s, t, s])",
    "sorted([s, t, sep])",
    "s < t",
    "s in t",
    "hash(s)",
    "len(s)",
    "s * n",
    "s + t",
    "s[i]",
    "s[i:j]",
    "s[i:j:k]",
    "s[::k]",
    "'%s|%r|%d' % (s, t, n)",
    "'{}:{!r}:{x}'.format(s, t, x=n)",
    "repr(s)",
    "str(s)",
    "s.index(sep)",
    "json.encode(s)",
    "json.decode(json.encode(s)) == s",
  ),
).map(([s, t, sep, i, j, k, n, op]) =>
  program(
    `s = ${starlarkString(s)}\nt = ${starlarkString(t)}\nsep = ${starlarkString(sep)}\n` +
      `i = ${i}\nj = ${j}\nk = ${k}\nn = ${n}\nreturn repr(${op})`,
  )
);

const ints = fc.array(fc.integer({ min: -50, max: 50 }), { maxLength: 12 });

/** Lists, dicts, comprehensions and the ordering built-ins over small int lists. */
export const collectionProgram: fc.Arbitrary<string> = fc.tuple(
  ints,
  ints,
  fc.integer({ min: -3, max: 3 }),
  fc.integer({ min: 1, max: 5 }),
  smallIndex,
  smallIndex,
  fc.constantFrom("None", "1", "2", "-1", "-3"),
  fc.constantFrom(
    "[x * a + m for x in L if x % m == 1]",
    "[(x, y) for x in L if x > a for y in M if y < x]",
    "{str(x % m): x for x in L}",
    "{x: i for i, x in enumerate(L)}",
    "sorted(L)",
    "sorted(L, reverse=True)",
    "sorted(L, key=lambda v: (v % 3, -v))",
    "sorted(L + M)[i:j]",
    "min(L)",
    "max(L, key=lambda v: -v)",
    "max(L + M)",
    "sum(L)",
    "list(reversed(L))",
    "list(enumerate(M, a))",
    "list(zip(L, M))",
    "L[i:j:k]",
    "L[i]",
    "L.index(a)",
    "a in L",
    "L + M",
    "L * m",
    "L < M",
    "L == M",
    "tuple(L) < tuple(M)",
    "dict(zip([str(v) for v in L], M)).items()",
    "[d for d in {x: 1 for x in L}]",
    "len({x % m: x for x in L + M})",
    "all(L)",
    "any([x > a for x in M])",
    "[x for x in range(a, m * 3, m)]",
    "list(range(10))[i:j:k]",
    "range(a, 20, m)[i:j:k]",
  ),
).map(([l, m, a, mm, i, j, k, op]) =>
  program(
    `L = ${JSON.stringify(l)}\nM = ${JSON.stringify(m)}\na = ${a}\nm = ${mm}\n` +
      `i = ${i}\nj = ${j}\nk = ${k}\nreturn repr(${op})`,
  )
);

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

const valuePool = fc.constantFrom(
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
const callee = fc.constantFrom(
  "abs",
  "all",
  "any",
  "bool",
  "chr",
  "dict",
  "dir",
  "enumerate",
  "float",
  "getattr",
  "hasattr",
  "hash",
  "int",
  "len",
  "list",
  "max",
  "min",
  "ord",
  "range",
  "repr",
  "reversed",
  "sorted",
  "str",
  "sum",
  "tuple",
  "type",
  "zip",
  "json.encode",
  "json.decode",
  "json.indent",
  "math.floor",
  "math.sqrt",
  "math.log",
  "math.pow",
  "math.round",
  "math.atan2",
);
const method = fc.constantFrom(
  "count",
  "endswith",
  "find",
  "format",
  "index",
  "join",
  "lstrip",
  "partition",
  "replace",
  "rfind",
  "rsplit",
  "split",
  "splitlines",
  "startswith",
  "strip",
  "title",
  "upper",
  "elems",
  "append",
  "extend",
  "insert",
  "pop",
  "remove",
  "clear",
  "get",
  "items",
  "keys",
  "setdefault",
  "update",
  "values",
  "popitem",
);

/** Built-in functions and methods called with arbitrary arguments: results and argument errors. */
export const builtinCallProgram: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(
    callee,
    fc.array(valuePool, { maxLength: 3 }),
    fc.option(
      fc.tuple(fc.constantFrom("key", "reverse", "default", "start", "x", "base"), valuePool),
    ),
  )
    .map(([f, args, kw]) =>
      program(`return repr(${f}(${[...args, ...(kw ? [`${kw[0]}=${kw[1]}`] : [])].join(", ")}))`)
    ),
  fc.tuple(valuePool, method, fc.array(valuePool, { maxLength: 3 })).map(([recv, m, args]) =>
    program(`x = ${recv}\nr = x.${m}(${args.join(", ")})\nreturn repr([r, x])`)
  ),
  fc.tuple(valuePool, fc.array(valuePool, { minLength: 1, maxLength: 3 })).map(([fmt, args]) =>
    program(`return repr(${fmt} % (${args.join(", ")},))`)
  ),
);

const formatPiece = fc.oneof(
  fc.constantFrom("a", " ", "-", "é", "%%", "{{", "}}"),
  fc.constantFrom(
    "%s",
    "%r",
    "%d",
    "%i",
    "%o",
    "%x",
    "%X",
    "%e",
    "%E",
    "%f",
    "%F",
    "%g",
    "%G",
    "%c",
  ),
  fc.constantFrom("%(k)s", "%(k)d", "%z", "%", "%5d", "%-s", "%.2f"),
);
const bracePiece = fc.oneof(
  fc.constantFrom("a", " ", "é", "{{", "}}"),
  fc.constantFrom("{}", "{0}", "{1}", "{x}", "{!r}", "{!s}", "{0!r}", "{x!s}"),
  fc.constantFrom("{", "}", "{0:>3}", "{!x}", "{-1}", "{y}", "{0.a}", "{0[0]}", "{ }"),
);
const fmtArg = fc.constantFrom(
  "1",
  "-255",
  "3.5",
  "1e20",
  "-0.0",
  '"s"',
  '"é"',
  "True",
  "None",
  "[1]",
  "(1,)",
  "65",
  "1 << 70",
  '{"k": 1}',
  'float("inf")',
);

/** %-interpolation and str.format with generated templates, valid and invalid. */
export const formatProgram: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(
    fc.array(formatPiece, { maxLength: 5 }),
    fc.array(fmtArg, { maxLength: 4 }),
    fc.boolean(),
  )
    .map(([pieces, args, tuple]) =>
      program(
        `return repr(${starlarkString(pieces.join(""))} % ` +
          (tuple || args.length !== 1
            ? `(${args.join(", ")}${args.length === 1 ? "," : ""})`
            : args[0]) +
          ")",
      )
    ),
  fc.tuple(fc.array(formatPiece, { maxLength: 4 }), fmtArg).map(([pieces, v]) =>
    program(`return repr(${starlarkString(pieces.join(""))} % {"k": ${v}})`)
  ),
  fc.tuple(
    fc.array(bracePiece, { maxLength: 5 }),
    fc.array(fmtArg, { maxLength: 3 }),
    fc.option(fmtArg),
  )
    .map(([pieces, args, x]) =>
      program(
        `return repr(${starlarkString(pieces.join(""))}.format(` +
          [...args, ...(x ? [`x=${x}`] : [])].join(", ") + "))",
      )
    ),
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

const listOp = fc.oneof(
  fc.constantFrom(
    "x.append(V)",
    "x.extend([V, V])",
    "x.insert(I, V)",
    "x.pop()",
    "x.pop(I)",
    "x.remove(V)",
  ),
  fc.constantFrom(
    "x.clear()",
    "x += [V]",
    "x *= 2",
    "x[I] = V",
    "x = x[I:I]",
    "x = sorted(x)",
    "x.index(V)",
  ),
);
const dictOp = fc.constantFrom(
  "d[V] = I",
  "d.pop(V)",
  "d.pop(V, 0)",
  "d.setdefault(V, I)",
  "d.update({V: I})",
  "d.update([(V, I)])",
  "d.popitem()",
  "d.clear()",
  "d.get(V)",
  "d = dict(d, z=I)",
  "d = {k: v for k, v in d.items() if v != I}",
);

/** Sequences of list and dict mutations, printing the state after each step. */
export const mutationProgram: fc.Arbitrary<string> = fc.tuple(
  fc.array(
    fc.tuple(
      fc.oneof(listOp, dictOp),
      fc.integer({ min: -4, max: 4 }),
      fc.integer({ min: 0, max: 4 }),
    ),
    {
      minLength: 1,
      maxLength: 8,
    },
  ),
).map(([ops]) =>
  program(
    "x = [1, 2, 3]\nd = {1: 1, 2: 2}\nout = []\n" +
      ops.map(([op, i, v]) =>
        op.replaceAll("I", String(i)).replaceAll("V", String(v)) + "\nout.append(repr([x, d]))"
      )
        .join("\n") +
      "\nreturn out",
  )
);

const paramList = fc.constantFrom(
  "",
  "a",
  "a, b",
  "a, b=2",
  "a=1, b=2",
  "*args",
  "a, *args",
  "**kw",
  "a, **kw",
  "a, *args, **kw",
  "a, *, b",
  "a, *, b=3",
  "*, b",
  "a, b=2, *args, c, d=4, **kw",
  "*args, b",
  "a, *args, b=5",
);
const callArgs = fc.array(
  fc.constantFrom(
    "1",
    "2",
    "3",
    "a=10",
    "b=20",
    "c=30",
    "d=40",
    "e=50",
    "*[7, 8]",
    "*()",
    "**{}",
    '**{"b": 9}',
    '**{"z": 1}',
    "*[1]",
    '**{"a": 1}',
  ),
  { maxLength: 4 },
);

/** Parameter binding: definitions with every parameter kind, called in every argument style. */
export const callBindingProgram: fc.Arbitrary<string> = fc.tuple(paramList, callArgs).map((
  [params, args],
) => {
  // Positional before keyword before **: keep the call syntactically valid most of the time.
  const order = (a: string) =>
    a.startsWith("**") ? 3 : a.startsWith("*") ? 1 : a.includes("=") ? 2 : 0;
  const sorted = [...args].sort((x, y) => order(x) - order(y));
  const names = params.split(",").map((p) => p.trim().replace(/^\*+/, "").replace(/=.*/, ""))
    .filter((n) => n !== "");
  return `def f(${params}):\n    return [${names.join(", ")}]\n\n` +
    program(`return repr(f(${sorted.join(", ")}))`);
});

const richValue: fc.Arbitrary<string> = fc.letrec<{ v: string }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    valuePool,
    fc.array(tie("v"), { maxLength: 3 }).map((xs) => `[${xs.join(", ")}]`),
    fc.array(tie("v"), { maxLength: 3 }).map((xs) =>
      `(${xs.join(", ")}${xs.length === 1 ? "," : ""})`
    ),
    fc.array(
      fc.tuple(fc.constantFrom('"a"', '"b"', "1", "2.0", "None", "(1,)", "True"), tie("v")),
      {
        maxLength: 2,
      },
    ).map((kvs) => `{${kvs.map(([k, v]) => `${k}: ${v}`).join(", ")}}`),
  ),
})).v;

/**
 * Operators, comparisons and conversions over nested values of mixed types. (No `hash()` or
 * dict `|`: Debian's starlark-go predates hashing non-strings and dict union.)
 */
export const valueOpsProgram: fc.Arbitrary<string> = fc.tuple(
  richValue,
  richValue,
  fc.constantFrom(
    "x == y",
    "x != y",
    "x < y",
    "x <= y",
    "x > y",
    "x in y",
    "x not in y",
    "x + y",
    "x * y",
    "x % y",
    "x - y",
    "x & y",
    "x // y",
    "x / y",
    "-x",
    "not x",
    "sorted([x, y])",
    "{x: 1, y: 2}",
    "len(x)",
    "str(x)",
    "bool(x)",
    "list(x)",
    "tuple(x)",
    "dict(x)",
    "[x, y][1:]",
    "x[0]",
    "x[-1]",
    "x[y]",
    "x[1:]",
    "max(x, y)",
    "min([x, y])",
    "x if y else y",
    "type(x)",
    "json.encode(x)",
    "repr(x)",
    "str(y)",
    "x and y",
    "x or y",
    "{k: v for k, v in x.items()}",
    "[e for e in x]",
  ),
).map(([x, y, op]) => program(`x = ${x}\ny = ${y}\nreturn repr(${op})`));

const closureSnippet = fc.constantFrom(
  "fs = [lambda: i for i in range(3)]\nout.append([f() for f in fs])",
  "def mk(n):\n    return lambda x: x + n\nout.append([mk(k)(10) for k in range(3)])",
  "acc = []\ndef push(v):\n    acc.append(v)\n    return len(acc)\nout.append([push(1), push(2), acc])",
  "def outer():\n    y = [0]\n    def inc():\n        y[0] += 1\n        return y[0]\n    return [inc(), inc()]\nout.append(outer())",
  "G.append(1)",
  'D["k"] = 2',
  "def f(x=G):\n    return x\nout.append(f())",
  "out.append(sorted(G + [3, 1], key=lambda v: -v))",
  'def g(*a, **k):\n    return [a, sorted(k.items())]\nout.append(g(1, *[2], z=3, **{"y": 4}))',
  "h = lambda *a: len(a)\nout.append(h(*range(4)))",
  "out.append([x for x in [1, 2, 3] if x != N])",
  "out.append({k: [v for v in range(k)] for k in range(N)})",
  "def r(n):\n    return n if n < 1 else r(n - 1)\nout.append(r(2))",
  "out.append(type(lambda: 0) == type(len))",
  "out.append(str(lambda: 0))",
  'out.append([getattr(G, "append") != None, hasattr(D, "keys")])',
  "for k in D:\n    D[k] = 1",
  "for v in G:\n    out.append(v)\n    if v > N:\n        break",
  "def gen():\n    return [(i, j) for i in range(N) for j in range(i)]\nout.append(gen())",
);

/** Closures, defaults, frozen globals and mutation during iteration. */
export const closureProgram: fc.Arbitrary<string> = fc.tuple(
  fc.array(closureSnippet, { minLength: 1, maxLength: 4 }),
  fc.integer({ min: 0, max: 3 }),
).map(([snippets, n]) =>
  `G = [5, 6]\nD = {"a": 1}\nN = ${n}\n` +
  program("out = []\n" + snippets.join("\n") + "\nreturn out")
);
