/** Generators of call programs: built-ins with arbitrary arguments, parameter binding, closures. */
import fc from "fast-check";
import { program, valuePool } from "./literals.ts";

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
