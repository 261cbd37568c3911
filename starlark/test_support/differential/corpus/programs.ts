/**
 * Corpus: comprehensions, functions, statements, built-ins, json, math, starlark-go's allocation
 * limits, and the differences the generators found.
 */
import { type CorpusCase, main } from "./case.ts";

export const PROGRAM_CASES: CorpusCase[] = [
  // comprehensions
  {
    name: "list comprehension",
    src: main(
      `return [[x * y for x in range(4) if x % 2 == 0 for y in range(3) if y], [(i, s) for i, s in enumerate(["a", "b"])]]`,
    ),
  },
  { name: "dict comprehension", src: main(`return {str(k): k * k for k in range(5) if k != 2}`) },
  { name: "comprehension scope", src: main(`x = 10\ny = [x for x in range(3)]\nreturn [x, y]`) },
  // functions
  {
    name: "function parameters",
    src: "def f(a, b=2, *args, c, d=4, **kw):\n    return [a, b, args, c, d, kw]\n\n" +
      main(`return [f(1, c=3), f(1, 2, 3, 4, c=5, e=6), f(*[1, 2], **{"c": 7})]`),
  },
  {
    name: "missing argument",
    src: "def f(a, b):\n    return a\n\n" + main(`return f(1)`),
    positionMayDiffer: "BUGS.md 23",
  },
  {
    name: "too many arguments",
    src: "def f(a):\n    return a\n\n" + main(`return f(1, 2)`),
    positionMayDiffer: "BUGS.md 23",
  },
  {
    name: "unexpected keyword",
    src: "def f(a):\n    return a\n\n" + main(`return f(a=1, b=2)`),
    positionMayDiffer: "BUGS.md 23",
  },
  {
    name: "multiple values",
    src: "def f(a):\n    return a\n\n" + main(`return f(1, a=2)`),
    positionMayDiffer: "BUGS.md 23",
  },
  {
    name: "closures and lambdas",
    src: main(
      `n = 3\nadd = lambda x, y=1: x + y + n\nsq = [lambda: i for i in range(2)]\nreturn [add(1), add(1, 2), type(add), str(add)[:9]]`,
    ),
  },
  {
    name: "defaults frozen with the module",
    src: "def f(x=[]):\n    x.append(1)\n    return len(x)\n\n" + main(`return [f(), f(), f([])]`),
  },
  {
    name: "recursion is an error",
    src: "def f(n):\n    return 1 if n == 0 else n * f(n - 1)\n\n" + main(`return f(5)`),
    positionMayDiffer: "BUGS.md 23",
  },
  { name: "fail builtin", src: main(`fail("oops", 1, [2])`) },
  { name: "undefined name", src: main(`return undefined_name`) },
  { name: "local before assignment", src: main(`y = x\nx = 1\nreturn y`) },
  { name: "global reassign", src: "x = 1\nx = 2\n" },
  { name: "toplevel for", src: "for x in range(3):\n    pass\n" },
  { name: "toplevel if", src: "if True:\n    pass\n" },
  { name: "while unsupported", src: main(`while True:\n    pass`) },
  {
    name: "set unsupported",
    src: main(`return set([1])`),
    messageMayDiffer: "dialect may drop set from the universe (undefined: set)",
  },
  {
    name: "load unsupported",
    src: 'load("x.star", "y")\n',
    classMayDiffer: "starlark-go fails load at run time; our dialect may reject it statically",
  },
  { name: "syntax error", src: "def main(:\n    return 1\n" },
  { name: "bad indentation", src: "def main():\n    x = 1\n  return x\n" },
  { name: "chained comparison", src: main(`return 1 < 2 < 3`) },
  { name: "unparenthesized trailing comma tuple", src: main(`x = 1, 2,\nreturn x`) },
  {
    name: "break and continue",
    src: main(
      `out = []\nfor i in range(10):\n    if i == 2:\n        continue\n    if i == 6:\n        break\n    out.append(i)\nreturn out`,
    ),
  },
  {
    name: "if elif else",
    src:
      "def g(x):\n    if x < 0:\n        return 'neg'\n    elif x == 0:\n        return 'zero'\n    else:\n        return 'pos'\n\n" +
      main(`return [g(-1), g(0), g(1)]`),
  },
  {
    name: "augmented assignment",
    src: main(
      `x = 5\nx += 2\nx -= 1\nx *= 3\nx //= 4\nx %= 3\nx |= 8\nx &= 12\nx ^= 5\nx <<= 2\nx >>= 1\nl = [1]\nl[0] += 4\nd = {"k": 1}\nd["k"] *= 7\nreturn [x, l, d]`,
    ),
  },
  {
    name: "conditional expression",
    src: main(`return [1 if True else 2, "a" if 0 else "b", [] or "empty", 0 and 1, not None]`),
  },
  // built-ins
  {
    name: "builtins",
    src: main(
      `return [abs(-3), abs(-2.5), all([1, 1]), any([0, 0]), bool([]), chr(233), ord("é"), len({"a": 1}), list(range(3)), max(3, 1, 2), min([4, 2]), max(["aa", "b"], key=len), sorted([3, 1, 2], reverse=True), sorted(["b", "A", "a"], key=lambda s: s.lower()), list(reversed([1, 2])), list(zip([1, 2], "ab".elems())), sum([1, 2, 3]), sum([0.5, 1.5]), str(None), tuple([1]), type(1), type(""), type(None)]`,
    ),
  },
  {
    name: "range",
    src: main(
      `r = range(1, 10, 3)\nreturn [repr(r), len(r), r[1], list(r[::-1]), 4 in r, 5 in r, list(range(5, 0, -2)), len(range(1000000))]`,
    ),
  },
  {
    name: "dir getattr hasattr",
    src: main(
      `return [dir("")[:3], hasattr([], "append"), getattr("abc", "upper")(), getattr([], "nope", 7), dir(json), "floor" in dir(math)]`,
    ),
  },
  { name: "attribute error", src: main(`return "x".nope()`) },
  { name: "min of empty", src: main(`return min([])`) },
  { name: "sorted mixed types", src: main(`return sorted([1, "a"])`) },
  { name: "type errors", src: main(`return 1 + "a"`) },
  { name: "comparison type error", src: main(`return [1] < (1,)`) },
  { name: "enumerate start", src: main(`return list(enumerate(["a", "b"], 10))`) },
  {
    name: "str of values",
    src: main(`return [str([1, "a", (2,), {"k": None}]), repr(True), str(len), str(math)]`),
  },
  // json
  {
    name: "json encode",
    src: main(`return json.encode({"b": [1, 2.5, None, True], "a": "é\\n<"})`),
  },
  {
    name: "json decode",
    src: main(
      `return [json.decode('{"a": [1, 2.5, null, true, "x"], "b": {}}'), json.decode("12345678901234567890") == 12345678901234567890]`,
    ),
  },
  { name: "json decode error", src: main(`return json.decode("[1,")`) },
  { name: "json indent", src: main(`return json.indent('{"a":[1,2],"b":{}}')`) },
  { name: "json encode non-finite", src: main(`return json.encode(float("nan"))`) },
  {
    name: "json round trip",
    src: main(
      `v = {"k": [1, -2, 3.5, "s", [], {}, None, False]}\nreturn json.decode(json.encode(v)) == v`,
    ),
  },
  // math
  {
    name: "math",
    src: main(
      `return [math.floor(2.7), math.ceil(-2.5), math.floor(7), math.sqrt(16), math.pow(2, 10), math.fabs(-1), math.mod(7, 3), math.round(2.5), math.round(-0.5), math.log(math.e), math.log(8, 2), math.hypot(3, 4), math.degrees(math.pi), math.copysign(3, -1), math.remainder(7, 4)]`,
    ),
  },
  { name: "math floor of inf", src: main(`return math.floor(float("inf"))`) },
  { name: "math bad argument", src: main(`return math.sqrt("x")`) },
  // built-in allocation limits of starlark-go (no budgets set)
  { name: "repeat count too large", src: main(`return len("x" * (1 << 40))`) },
  { name: "excessive string repeat", src: main(`return len("ab" * (1 << 29))`) },
  { name: "excessive list repeat", src: main(`return len([1, 2] * (1 << 29))`) },
  { name: "shift count too large", src: main(`return 1 << 600`) },
  { name: "negative shift count", src: main(`return 1 >> -1`) },
  { name: "int too large for float", src: main(`return float((1 << 511) * (1 << 511) * 4)`) },
  { name: "float to int of nan", src: main(`return int(float("nan"))`) },
  // differences found by the generators (see BUGS.md; ignored via known_bugs.ts until fixed)
  { name: "capitalize uses title case", src: main(`return "ǅx".capitalize()`) },
  {
    name: "cased runes follow unicode.SimpleFold",
    src: main(`return ["İ".isupper(), "İxa".title(), "ǅ".istitle()]`),
  },
  { name: "repr of an empty range slice", src: main(`return repr(range(0, 20, 4)[0:5:-1])`) },
  { name: "for loop variables with a trailing comma", src: main(`for a, in [[1]]:\n    pass`) },
  { name: "parameter list with a trailing comma before colon", src: "def f(a=1, :\n    pass\n" },
  { name: "unterminated string with a bad escape", src: main(`x = "a\\q\nreturn x`) },
  {
    name: "enumerate is positional only",
    src: main(`return list(enumerate("ab".elems(), start=1))`),
  },
  { name: "strip(None) is an error", src: main(`return " x ".strip(None)`) },
  { name: "max key=None is an error", src: main(`return max([1, 2], key=None)`) },
  { name: "sorted checks its key before sorting", src: main(`return sorted([], key=1)`) },
  { name: "rfind with a huge start index", src: main(`return "abc".rfind("c", 1 << 70)`) },
  { name: "unexpected keyword argument is quoted", src: main(`return min(1, 2, default=3)`) },
  { name: "string method argument errors", src: main(`return "abc".index(1.5)`) },
  { name: "json errors name the module", src: main(`return json.decode()`) },
  {
    name: "float() parses like strconv.ParseFloat",
    src: main(`return [float("1_000.5"), float("0x1p4")]`),
  },
  { name: "unknown conversion of a non-ASCII byte", src: main(`return "%é" % 1`) },
  { name: "index beyond 32 bits", src: main(`return [1][1 << 70]`) },
  {
    name: "empty sequence times a huge count",
    src: main(`return [() * (1 << 70), "" * (1 << 70)]`),
  },
  {
    name: "sharp s is a cased rune",
    src: main(`return ["ßa".title(), "ß".islower(), "ß".upper()]`),
  },
  { name: "reserved word as an expression", src: main(`return is`) },
  {
    name: "empty substring search with start after end",
    src: main(`return ["aaa".find("", 100, -2), " x  y ".count("", -1, 0), "ab".rfind("", 2, 1)]`),
  },
  { name: "json.indent validates string escapes", src: main(`return json.indent('"a\\\\qb"')`) },
  { name: "json.indent literal errors", src: main(`return json.indent("[fa]")`) },
  { name: "json.decode escape error offset", src: main(`return json.decode('["abc\\\\qd"]')`) },
  { name: "truncated hex escape", src: main(`return "\\x4"`) },
  { name: "float literal out of range", src: main(`return 1e309`) },
  {
    name: "backslash-continued blank line",
    src: "def main():\n    x = 1\n    \\\n\n    return x\n",
  },
  { name: "json.indent error with a non-ASCII byte", src: main(`return json.indent("é[]")`) },
  {
    name: "math.remainder is IEEE remainder",
    src: main(
      `return [math.remainder(1.0, 1e-137), repr(math.remainder(-0.0, 1.0)), math.remainder(5, 3)]`,
    ),
  },
  {
    name: "math.degrees formula",
    src: main(`return repr(math.degrees(-2.1519515060106543e-200))`),
  },
  {
    name: "math.gamma accuracy",
    src: main(`return [math.gamma(0.5), math.gamma(0.1), math.gamma(170.5)]`),
  },
  { name: "pop from an empty dict with an unhashable key", src: main(`return {}.pop([], 7)`) },
  {
    name: "math.gamma in the Stirling and reflection ranges",
    src: main(
      `return [math.gamma(143.5), math.gamma(171.6), math.gamma(-170.5), math.gamma(-33.5)]`,
    ),
  },
  // argument errors: the first one starlark-go's UnpackArgs reports (BUGS.md 25)
  {
    name: "sorted: positional type error before an unknown keyword",
    src: main(`return sorted("abc", x=1)`),
  },
  {
    name: "sorted: keyword type errors in call order",
    src: main(`return sorted([], reverse=1, key="s")`),
  },
  {
    name: "sorted: keyword type error before a missing argument",
    src: main(`return sorted(key=1)`),
  },
  { name: "list.index: invalid start index", src: main(`return [1].index(1, [])`) },
  { name: "list.index: invalid end index", src: main(`return [1].index(1, 0, "x")`) },
  { name: "hash of a list is a type error, not unhashable", src: main(`return hash([1])`) },
  { name: "json.indent: prefix must be a string", src: main(`return json.indent("{}", prefix=1)`) },
  // steps
  { name: "steps of a loop", src: main(`t = 0\nfor i in range(1000):\n    t += i\nreturn t`) },
  { name: "no main", src: "x = 1 + 2\n" },
];
