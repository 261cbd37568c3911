/** Generators of string programs: methods, slicing, %-formatting, str.format. */
import fc from "fast-check";
import { program, smallIndex, starlarkString, str } from "./literals.ts";

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

/** String literals of every quoting style with valid and invalid escapes: scanner values and errors. */
export const literalProgram: fc.Arbitrary<string> = fc.tuple(
  fc.constantFrom('"', "'", '"""', "'''", 'r"', "r'", 'r"""'),
  fc.array(
    fc.constantFrom(
      "a",
      "é",
      " ",
      "\\n",
      "\\t",
      "\\\\",
      "\\'",
      '\\"',
      "\\x41",
      "\\x4",
      "\\101",
      "\\0",
      "\\400",
      "\\8",
      "\\q",
      "\\a",
      "\\v",
      "\\f",
      "\\b",
      "\\r",
      "\\\n",
      "\n",
      '"',
      "'",
      "\\x",
      "\\xff",
      "\\377",
      "\\1234",
      "#",
    ),
    { maxLength: 6 },
  ),
).map(([quote, parts]) => {
  const close = quote.startsWith("r") ? quote.slice(1) : quote;
  return program(`return repr(${quote}${parts.join("")}${close})`);
});
