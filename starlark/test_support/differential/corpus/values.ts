/** Corpus: values of each type, their operators, methods and errors. */
import { type CorpusCase, main } from "./case.ts";

export const VALUE_CASES: CorpusCase[] = [
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
  // `+` chains: starlark-go's compiler folds adjacent string, list, tuple and bytes literals
  // (internal/compile `plus`); for bytes that decides the outcome, as bytes have no `+` at run time.
  {
    name: "plus chains of literals",
    src: main(
      `x = 1\nreturn ["a" + "b" + "c", [1] + [2] + [3], (1,) + (2,) + (), ("a") + ("b")]`,
    ),
  },
  { name: "plus chain with a variable first", src: main(`x = 1\nreturn x + "a" + "b"`) },
  { name: "plus chain with a variable last", src: main(`x = 1\nreturn "a" + "b" + x`) },
  {
    name: "bytes literals added",
    src: main(`return [repr(b"a" + b"b"), repr((b"a") + (b"b") + b"c"), repr(b"" + b"")]`),
    newest: { value: ['b"ab"', 'b"abc"', 'b""'] },
  },
  {
    name: "bytes variable plus a bytes literal",
    src: main(`x = b"a"\nreturn x + b"b"`),
    newest: { message: "unknown binary op: bytes + bytes", line: 3, col: 14 },
  },
  {
    name: "bytes literals folded, then plus a variable",
    src: main(`x = b"c"\nreturn b"a" + b"b" + x`),
    newest: { message: "unknown binary op: bytes + bytes", line: 3, col: 24 },
  },
  {
    name: "bytes variable plus folded literals",
    src: main(`x = b"c"\nreturn x + b"a" + b"b"`),
    newest: { message: "unknown binary op: bytes + bytes", line: 3, col: 14 },
  },
  {
    name: "bytes literal plus a parenthesized sum of literals",
    src: main(`return b"a" + (b"b" + b"c")`),
    newest: { message: "unknown binary op: bytes + bytes", line: 2, col: 17 },
  },
];
