/** Generators of method calls with index arguments, ranges, cyclic values and key functions. */
import fc from "fast-check";
const idx = fc.constantFrom("0", "1", "2", "-1", "-2", "5", "-9", "None", "100");
const s = fc.constantFrom(
  '"banana"',
  '""',
  '"a.b.c"',
  '"aaa"',
  '"Hello World"',
  '" x  y "',
  '"a\\nb\\r\\nc\\n"',
  '"é€b"',
);
const sub = fc.constantFrom('"a"', '"an"', '""', '"."', '"z"', '" "', '"\\n"', '"€"');
/**
 * String and list methods with start/end/count arguments (including out-of-range and None),
 * range arithmetic, cyclic values and key functions.
 */
export const methodArgsProgram = fc.oneof(
  fc.tuple(
    s,
    fc.constantFrom("find", "rfind", "index", "rindex", "count", "startswith", "endswith"),
    sub,
    fc.array(idx, { maxLength: 2 }),
  )
    .map(([x, m, a, r]) => `def main():\n    return repr(${x}.${m}(${[a, ...r].join(", ")}))\n`),
  fc.tuple(s, fc.constantFrom("split", "rsplit"), fc.option(sub), fc.option(idx))
    .map(([x, m, a, n]) =>
      `def main():\n    return repr(${x}.${m}(${a ?? "None"}${n ? ", " + n : ""}))\n`
    ),
  fc.tuple(
    s,
    fc.constantFrom(
      "splitlines()",
      "splitlines(True)",
      "splitlines(False)",
      'replace("a", "o", -1)',
      'replace("a", "o", 0)',
      'replace("", "-")',
      'replace("", "-", 2)',
      'partition("")',
      "join([])",
      "elems()",
      'strip("")',
      "title()",
      "capitalize()",
      "lower()",
      "upper()",
      "isspace()",
      "istitle()",
    ),
  )
    .map(([x, m]) => `def main():\n    return repr(${x}.${m})\n`),
  fc.tuple(
    fc.constantFrom("[1, 2, 3, 2]", "[]", "[3]"),
    fc.constantFrom("index(2", "pop(", "insert(", "remove(2"),
    fc.array(idx, { maxLength: 2 }),
  )
    .map(([x, m, r]) =>
      `def main():\n    l = ${x}\n    v = l.${m}${m.endsWith("(") ? "" : r.length ? ", " : ""}${
        r.join(", ")
      }${
        m === "insert(" && r.length < 2 ? (r.length ? ", 9" : "0, 9") : ""
      })\n    return repr([v, l])\n`
    ),
  fc.tuple(
    idx,
    idx,
    fc.constantFrom("1", "2", "-1", "-3", "0"),
    fc.constantFrom(
      "len(r)",
      "list(r)",
      "repr(r)",
      "3 in r",
      "r[1]",
      "r[-1]",
      "repr(r[1:])",
      "repr(r[::-1])",
      "r == range(0)",
      "repr(r[::2])",
      "list(reversed(r))",
      "r[:1] == r[0:1]",
    ),
  )
    .map(([a, b, c, op]) =>
      `def main():\n    r = range(${a === "None" ? 0 : a}, ${
        b === "None" ? 5 : b
      }, ${c})\n    return repr(${op})\n`
    ),
  fc.constantFrom(
    "def main():\n    x = []\n    x.append(x)\n    return str(x)\n",
    "def main():\n    x = {}\n    x[1] = x\n    return str(x)\n",
    "def main():\n    x = []\n    x.append(x)\n    return x == x\n",
    "def main():\n    x = [1]\n    y = [x]\n    x.append(y)\n    return x == y\n",
    "def main():\n    return list(zip([1, 2], [3]))\n",
    "def main():\n    return reversed({1: 2})\n",
    "def main():\n    return max([(1, 'b'), (1, 'a')], key=lambda t: t[0])\n",
    "def main():\n    return min([3, 1, 1.0], key=lambda t: t)\n",
    "def main():\n    return sorted([(2, 'a'), (1, 'b'), (2, 'c')], key=lambda t: t[0], reverse=True)\n",
  ),
);
