/**
 * Hostile programs (those of docs/starlark.md#hostile-programs and a family around each), shared by
 * `hostile_test.ts` (asserts the budget error kind) and `tests/bench/starlark/hostile.ts` (measures
 * overrun and peak RSS). Each is the body of `main()`; every one must end with a limit error under
 * any budgets.
 */

export interface Hostile {
  name: string;
  /** Body of main(), indented by the wrapper. */
  body: string;
  /** Acceptable error codes (all of kind "limit"). */
  codes: string[];
}

const LOOP = "for i in range(1000000000):";
const BIG = 's = "ab" * (1 << 19)'; // 1 MiB: within a 1 MiB maxBytes
const SHARED = "a1 = [1] * 1000\na2 = [1] * 1000\nb1 = [a1] * 1000\nb2 = [a2] * 1000";
const ANY = ["max_steps", "timeout", "max_alloc", "max_bytes", "max_depth"];
const WORK = ["max_steps", "timeout"];
const MEMORY = ["max_alloc", "max_steps", "timeout"];

export const HOSTILE: Hostile[] = [
  // --- hashing and huge keys
  {
    name: "tuple keys sharing a 10 MB tuple (once: 4.2 GB crash)",
    body: `s = "x" * 100000\nt = (s,) * 100\nd = {}\n${LOOP}\n    d[(t, i)] = 1`,
    codes: MEMORY,
  },
  {
    name: "fresh tuple keys around a big string",
    body: `s = "x" * 1000000\nd = {}\n${LOOP}\n    d[(s, i)] = 1`,
    codes: MEMORY,
  },
  {
    name: "doubly shared nested tuple key looked up",
    body: `t = ("x" * 10000,)\nfor i in range(40):\n    t = (t, t)\nd = {}\n${LOOP}\n    d[t] = i`,
    codes: MEMORY,
  },
  { name: "hash of a big string", body: `${BIG}\n${LOOP}\n    hash(s)`, codes: WORK },
  {
    name: "bytes keys",
    body: `b = bytes("x" * 1000000)\nd = {}\n${LOOP}\n    d[(b, i)] = 1`,
    codes: MEMORY,
  },
  // --- work inside operators and builtins
  { name: '"aab" in a big string', body: `${BIG}\n${LOOP}\n    "aab" in s`, codes: WORK },
  { name: "count on a big string", body: `${BIG}\n${LOOP}\n    s.count("ba")`, codes: WORK },
  { name: "find miss on a big string", body: `${BIG}\n${LOOP}\n    s.find("abb")`, codes: WORK },
  { name: "rfind miss on a big string", body: `${BIG}\n${LOOP}\n    s.rfind("bba")`, codes: WORK },
  { name: "split of a big string", body: `${BIG}\n${LOOP}\n    s.split("a")`, codes: ANY },
  { name: "replace in a big string", body: `${BIG}\n${LOOP}\n    s.replace("a", "")`, codes: ANY },
  { name: "upper of a big string", body: `${BIG}\n${LOOP}\n    s.upper()`, codes: ANY },
  {
    name: "isalnum of a big non-ASCII string",
    body: `s = "é" * (1 << 18)\n${LOOP}\n    s.isalnum()`,
    codes: WORK,
  },
  {
    name: "== of big equal strings",
    body: `${BIG}\nt = "ab" * (1 << 19)\n${LOOP}\n    s == t`,
    codes: WORK,
  },
  { name: "== of shared nested lists", body: `${SHARED}\n${LOOP}\n    b1 == b2`, codes: WORK },
  { name: "< of shared nested lists", body: `${SHARED}\n${LOOP}\n    b1 < b2`, codes: WORK },
  { name: "in on a list of big lists", body: `${SHARED}\n${LOOP}\n    a2 in b1`, codes: WORK },
  {
    name: "index on a list of big lists",
    body: `${SHARED}\nb1 = b1 + [a2]\n${LOOP}\n    b1.index(a2)`,
    codes: WORK,
  },
  {
    name: "sorted of shared lists",
    body: `${SHARED}\nc = [a1, a2] * 5000\n${LOOP}\n    sorted(c)`,
    codes: ANY,
  },
  {
    name: "dict equality of big dicts",
    body: `d1 = {i: i for i in range(100000)}\nd2 = dict(d1)\n${LOOP}\n    d1 == d2`,
    codes: ANY,
  },
  {
    name: "str of a big int",
    body: `x = 1 << 511\nfor i in range(8):\n    x = x * x\n${LOOP}\n    str(x)`,
    codes: ANY,
  },
  { name: "big int squaring", body: `x = 3\n${LOOP}\n    x = x * x`, codes: ANY },
  // --- memory kept alive
  { name: "many small lists kept", body: `l = []\n${LOOP}\n    l.append([i, i])`, codes: MEMORY },
  {
    name: "many dicts kept",
    body: `l = []\n${LOOP}\n    l.append({"a": i, "b": i})`,
    codes: MEMORY,
  },
  { name: "many strings kept", body: `l = []\n${LOOP}\n    l.append(str(i) * 100)`, codes: ANY },
  { name: "dict growth", body: `d = {}\n${LOOP}\n    d[i] = i`, codes: MEMORY },
  {
    name: "growing string prefixes kept",
    body: `s = ""\nl = []\n${LOOP}\n    s += "x" * 100\n    l.append(s)`,
    codes: ANY,
  },
  { name: "list doubling", body: "l = [1]\nfor i in range(64):\n    l += l", codes: ANY },
  {
    name: "list.extend of itself",
    body: "l = [1]\nfor i in range(64):\n    l.extend(l)",
    codes: ANY,
  },
  {
    name: "zip of many columns",
    body: `c = [[1] * 1000] * 100000\n${LOOP}\n    zip(*c)`,
    codes: ANY,
  },
  {
    name: "range materialised again and again",
    body: `l = []\n${LOOP}\n    l.append(list(range(1 << 20)))`,
    codes: ANY,
  },
  {
    name: "items of a big dict kept",
    body: `d = {i: i for i in range(100000)}\nl = []\n${LOOP}\n    l.append(d.items())`,
    codes: ANY,
  },
  // --- huge results and conversions
  {
    name: "returning a shared 10^9-element list (once: heap exhausted)",
    body: "x = [0] * 1000\ny = [x] * 1000\nz = [y] * 1000\nreturn z",
    codes: ["max_bytes", "max_depth", "max_alloc"],
  },
  {
    name: "json.encode of a shared structure",
    body: 'x = ["y" * 1000] * 1000\ny = [x] * 1000\nreturn len(json.encode(y))',
    codes: ANY,
  },
  {
    name: "str of a shared structure",
    body: 'x = ["y" * 1000] * 1000\ny = [x] * 1000\nreturn len(str(y))',
    codes: ANY,
  },
  // --- depth
  {
    name: "a million-deep list, str",
    body: `x = []\nfor i in range(1000000):\n    x = [x]\nreturn str(x)`,
    codes: ANY,
  },
  {
    name: "a million-deep list, json",
    body: `x = []\nfor i in range(1000000):\n    x = [x]\nreturn json.encode(x)`,
    codes: ANY,
  },
  {
    name: "a million-deep list, returned",
    body: `x = []\nfor i in range(1000000):\n    x = [x]\nreturn x`,
    codes: ANY,
  },
  {
    name: "a million-deep dict, hashed as a tuple",
    body: `x = ()\nfor i in range(1000000):\n    x = (x,)\nreturn {x: 1}`,
    codes: ANY,
  },
];

/** The program text of a hostile body. */
export function hostileProgram(h: Hostile): string {
  return "def main():\n" + h.body.split("\n").map((l) => "    " + l).join("\n") + "\n";
}
