/**
 * Hand-written differential corpus: each program runs through our interpreter and the Go
 * reference runner and must give the same value, or the same error class (and, unless noted,
 * the same message).
 *
 * Written for the Debian starlark-go snapshot (2021-01): it has no `bytes` type, no
 * `str.removeprefix/removesuffix`, no dict `|` union, so those are not exercised here (the
 * conformance harness covers them from the newer test files where available).
 */
export interface CorpusCase {
  name: string;
  src: string;
  /** Error texts legitimately differ (e.g. reworded in newer starlark-go); compare class only. */
  messageMayDiffer?: string;
  /** Runtime-error position differs for a known reason (BUGS.md 23). */
  positionMayDiffer?: string;
  /** Both must fail, but the class may differ (a documented dialect choice). */
  classMayDiffer?: string;
}

function main(body: string): string {
  return "def main():\n" + body.trim().split("\n").map((l) => "    " + l).join("\n") + "\n";
}

export const CORPUS: CorpusCase[] = [
  // ints
  {
    name: "int arithmetic",
    src: main(`return [1 + 2, 7 - 10, 6 * 7, 7 // 2, -7 // 2, 7 % -3, -7 % 3, 7 / 2, ~5, -(-3)]`),
  },
  {
    name: "big ints",
    src: main(
      `x = 1 << 100\nreturn [repr(x), repr(x * x - 1), repr(-x // 3), repr(x % 1000007), str(x >> 90)]`,
    ),
  },
  {
    name: "int bitwise",
    src: main(`return [5 & 3, 5 | 3, 5 ^ 3, -5 & 0xff, 1 << 62, -1 >> 3, 0x7f, 0o17, 0b101]`),
  },
  {
    name: "int parsing",
    src: main(
      `return [int("42"), int("-0x1f", 16), int("0b11", 0), int("z", 36), int(3.9), int(-3.9), int(True)]`,
    ),
  },
  {
    name: "int to float exactness",
    src: main(
      `return [float(1 << 53) == (1 << 53) + 1, (1 << 53) + 1 > float(1 << 53), repr(float((1 << 53) + 1))]`,
    ),
  },
  { name: "int result beyond int64", src: main(`return 1 << 64`) },
  { name: "int64 bounds", src: main(`return [(1 << 63) - 1, -(1 << 63)]`) },
  // floats
  {
    name: "float formatting",
    src: main(
      `return [str(1e6), str(1e5), str(123456.7), str(1e-4), str(1e-5), str(12345678.0), str(100.0 / 7), str(-0.0), str(1e100), str(float("inf")), str(-float("inf")), str(float("nan")), repr(2.5), str(1.0)]`,
    ),
  },
  {
    name: "float arithmetic",
    src: main(`return [0.1 + 0.2, 1.5 * 4, 7.0 // 2, -7.5 % 2, 3.0 / 4, 1e308 * 10 > 1e308]`),
  },
  {
    name: "float percent formats",
    src: main(
      `return ["%e" % 123, "%f" % 1.5, "%g" % 1e6, "%E" % 0.000123, "%G" % 1e-7, "%f" % 1.23e45]`,
    ),
  },
  {
    name: "float int comparisons",
    src: main(
      `return [1.0 == 1, 1 < 1.5, 2 > 1.999, 1.23e45 == 1230000000000000000000000000000000000000000000, sorted([3, 1.5, 2, 0.5])]`,
    ),
  },
  {
    name: "float nan ordering",
    src: main(`n = float("nan")\nreturn [repr(sorted([n, 1.0, -1.0])), n == n, n > 1e308]`),
    messageMayDiffer: "NaN total order is newer than the Debian snapshot",
  },
  { name: "float division by zero", src: main(`return 1.0 / 0`) },
  { name: "int division by zero", src: main(`return 1 // 0`) },
  { name: "int modulo by zero", src: main(`return 1 % 0`) },
  { name: "non-finite result", src: main(`return float("inf")`) },
  {
    name: "float() parsing",
    src: main(
      `return [float("1.5"), float("-2"), float("1e3"), float(7), repr(float("  3.25 ".strip()))]`,
    ),
  },
  // strings
  {
    name: "string basics",
    src: main(
      `s = "héllo"\nreturn [len(s), s[1], s[0:3], s[-1], s[::2], s[::-1] == s[::-1], "ll" in s, s * 2, s + "!"]`,
    ),
  },
  {
    name: "string elems",
    src: main(
      `return [list("aé".elems()), list("aé".elem_ords()), list("aé".codepoints()), list("aé".codepoint_ords())]`,
    ),
  },
  { name: "string not iterable", src: main(`return [c for c in "abc"]`) },
  {
    name: "string methods 1",
    src: main(
      `s = "  Hello, World  "\nreturn [s.strip(), s.lstrip(), s.rstrip(), s.lower(), s.upper(), s.strip().title(), "hello world".capitalize(), s.count("l"), s.find("o"), s.rfind("o"), s.find("z")]`,
    ),
  },
  {
    name: "string methods 2",
    src: main(
      `return ["a,b,,c".split(","), "a b  c".split(), "a,b,c".split(",", 1), "a,b,c".rsplit(",", 1), "x\\ny\\r\\nz".splitlines(), "abc".partition("b"), "abcb".rpartition("b"), "aaa".replace("a", "b", 2), ",".join(["x", "y"]), "ab".startswith(("x", "a")), "ab".endswith("b")]`,
    ),
  },
  {
    name: "string predicates",
    src: main(
      `return ["abc".isalpha(), "a1".isalnum(), "123".isdigit(), "ABC".isupper(), "abc".islower(), " \\t".isspace(), "Hello World".istitle(), "".isalpha()]`,
    ),
  },
  {
    name: "string strip chars",
    src: main(
      `return ["xxhixx".strip("x"), "abcba".strip("ab"), "..a..".lstrip("."), "..a..".rstrip(".")]`,
    ),
  },
  { name: "string index errors", src: main(`return "abc".index("z")`) },
  { name: "string out of range", src: main(`return "abc"[5]`) },
  {
    name: "string repr escapes",
    src: main(
      `return [repr("a\\"b\\\\c"), repr("tab\\there"), repr("\\x00\\x7f"), repr("é"), repr(chr(0x2028))]`,
    ),
  },
  {
    name: "percent formatting",
    src: main(
      `return ["%s-%r" % ("a", "a"), "%d %i %o %x %X" % (255, 255, 255, 255, 255), "%c%c" % (65, "é"), "%(k)s" % {"k": 1}, "%%", "%s" % [1]]`,
    ),
  },
  { name: "percent too few", src: main(`return "%s %s" % ("a",)`) },
  { name: "percent too many", src: main(`return "%s" % ("a", "b")`) },
  { name: "percent bad conversion", src: main(`return "%z" % 1`) },
  {
    name: "str.format",
    src: main(
      `return ["{} {}".format(1, "a"), "{1}{0}".format("a", "b"), "{x}!".format(x=3), "{!r}".format("q"), "{{}}".format()]`,
    ),
  },
  { name: "str.format errors", src: main(`return "{".format()`) },
  { name: "str.format missing key", src: main(`return "{x}".format(y=1)`) },
  {
    name: "string compare and hash",
    src: main(`return ["a" < "b", "ab" < "a", "Z" < "a", hash("hello"), hash("")]`),
  },
  // lists
  {
    name: "list methods",
    src: main(
      `x = [3, 1, 2]\nx.append(4)\nx.extend([5, 6])\nx.insert(0, 9)\nx.insert(-1, 8)\ny = x.pop()\nz = x.pop(0)\nx.remove(1)\nreturn [x, y, z, x.index(2), len(x)]`,
    ),
  },
  {
    name: "list operators",
    src: main(
      `a = [1, 2]\nb = a + [3]\na += [4]\nreturn [a, b, a * 2, 2 * [0], [1, 2] < [1, 3], [1] == [1], 2 in a, a[::-1], a[1:], a[-2:]]`,
    ),
  },
  {
    name: "list slicing steps",
    src: main(`x = list(range(10))\nreturn [x[1:8:3], x[::-3], x[8:1:-2], x[-100:100], x[5:2]]`),
  },
  { name: "list index out of range", src: main(`return [1, 2, 3][3]`) },
  { name: "list remove missing", src: main(`x = [1]\nx.remove(2)\nreturn x`) },
  { name: "frozen global list", src: "g = [1]\ndef main():\n    g.append(2)\n    return g\n" },
  {
    name: "mutation during iteration",
    src: main(`x = [1, 2]\nfor e in x:\n    x.append(e)\nreturn x`),
  },
  { name: "zero slice step", src: main(`return [1, 2][::0]`) },
  // tuples
  {
    name: "tuples",
    src: main(
      `t = (1, "a", 2.5)\nreturn [t, t[1], t[1:], t + (3,), t * 2, (1, 2) < (1, 3), len(()), (1,) == (1,)]`,
    ),
  },
  {
    name: "tuple unpacking",
    src: main(`a, (b, c) = 1, [2, 3]\n[d, e] = "xy".elems()\nreturn [a, b, c, d, e]`),
  },
  {
    name: "unpack too many",
    src: main(`a, b = [1, 2, 3]\nreturn a`),
    positionMayDiffer: "BUGS.md 23",
  },
  {
    name: "unpack too few",
    src: main(`a, b, c = (1, 2)\nreturn a`),
    positionMayDiffer: "BUGS.md 23",
  },
  // dicts
  {
    name: "dict methods",
    src: main(
      `d = {"b": 1, "a": 2}\nd["c"] = 3\nd["b"] = 4\ne = d.pop("a")\nd.setdefault("z", 9)\nd.update([("y", 8)], w=7)\nreturn [d, e, d.get("q"), d.get("q", 0), d.keys(), d.values(), d.items(), len(d), "z" in d]`,
    ),
  },
  {
    name: "dict popitem and clear",
    src: main(`d = {1: "a", 2: "b"}\np = d.popitem()\nd.clear()\nreturn [repr(p), repr(d)]`),
  },
  { name: "dict missing key", src: main(`return {"a": 1}["b"]`) },
  {
    name: "dict duplicate key literal",
    src: main(`return {"a": 1, "a": 2}`),
    positionMayDiffer: "BUGS.md 23",
  },
  { name: "dict int/float same key", src: main(`d = {1: "i"}\nd[1.0] = "f"\nreturn repr(d)`) },
  { name: "dict unhashable key", src: main(`return {[1]: 2}`), positionMayDiffer: "BUGS.md 23" },
  { name: "dict non-string key result", src: main(`return {1: 2}`) },
  {
    name: "dict constructor",
    src: main(
      `return [dict(a=1), dict([("x", 1)], y=2), dict({"k": 1}), dict(zip(["a", "b"], [1, 2]))]`,
    ),
  },
  {
    name: "dict equality and order",
    src: main(
      `return [{"a": 1, "b": 2} == {"b": 2, "a": 1}, list({"b": 1, "a": 2}), [k for k in {3: 0, 1: 0, 2: 0}]]`,
    ),
  },
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
  { name: "pop from an empty dict with an unhashable key", src: main(`return {}.pop([], 7)`) },
  // steps
  { name: "steps of a loop", src: main(`t = 0\nfor i in range(1000):\n    t += i\nreturn t`) },
  { name: "no main", src: "x = 1 + 2\n" },
];
