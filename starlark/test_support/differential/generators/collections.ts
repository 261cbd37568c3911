/** Generators of list/dict programs: comprehensions, ordering, mutation, mixed-type operators. */
import fc from "fast-check";
import { program, smallIndex, valuePool } from "./literals.ts";

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
