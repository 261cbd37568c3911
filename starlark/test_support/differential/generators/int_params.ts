/**
 * Every built-in parameter and operand that starlark-go takes as a Go integer, at the bounds of
 * its int types: int64 (`AsInt`: range, enumerate, split/rsplit maxsplit, replace count,
 * list.pop/insert), int32 (`AsInt32`: chr, int's base, indices and slice bounds, find/index/count
 * start and end, repeat counts, shift counts, `%c`, `in range`), and arbitrary-precision ints
 * elsewhere for contrast. (uint8, `bytes` elements and `int in bytes`, needs the bytes type the
 * reference lacks: int_params_test.ts checks it against newer starlark-go's texts.)
 */
import fc from "fast-check";
import { intLiteral, program } from "./literals.ts";

/** The bounds the issue names, plus int32's and a few small values. */
export const INT_BOUNDS: bigint[] = [
  -(2n ** 63n) - 1n,
  -(2n ** 63n),
  -(2n ** 53n) - 1n,
  2n ** 53n + 1n,
  2n ** 63n - 1n,
  2n ** 63n,
  -(2n ** 31n) - 1n,
  -(2n ** 31n),
  2n ** 31n - 1n,
  2n ** 31n,
  -1n,
  0n,
  3n,
];

/** Expressions with `N` where the int goes. */
export const INT_PARAM_TEMPLATES: string[] = [
  // int64 (AsInt into a Go int)
  "range(N)",
  "range(N, 5)",
  "range(5, N)",
  "range(0, 10, N)",
  "len(range(N))",
  "len(range(N, 0, -1))",
  "len(range(-N, N))",
  "range(N)[-1]",
  "range(N)[3]",
  "range(N)[1:7:2]",
  "range(N)[::-1][:3]",
  "list(range(N, N + 2))",
  "list(range(N, N - 3, -1))",
  "[x for x in range(N - 2, N)]",
  "range(N) == range(N)",
  "bool(range(-N, N))",
  "reversed(range(N - 3, N))",
  "sorted(range(N, N - 3, -1))",
  "tuple(range(N - 2, N))",
  "zip(range(N - 2, N), 'ab'.elems())",
  "[min(range(N - 3, N)), max(range(N - 3, N)), sum(range(N - 3, N))]",
  "str(range(N, -N, -(1 << 62)))",
  "range(0, N, 1 << 61)[-1]",
  "[N - 1 in range(N - 3, N), N in range(N - 3, N)]",
  "range(N - 3, N, 2) == range(N - 3, N - 1, 2)",
  "range(0, N, 1 << 52) == range(0, N + 1, 1 << 52)",
  "enumerate(['a', 'b'], N)",
  "'a,b'.split(',', N)",
  "'a,b'.rsplit(',', N)",
  "' a b '.split(None, N)",
  "' a b '.rsplit(None, N)",
  "'aaa'.replace('a', 'b', N)",
  "[1, 2, 3].pop(N)",
  "[].pop(N)",
  "[1, 2, 3].insert(N, 9)",
  // int32 (AsInt32)
  "chr(N)",
  "int('10', N)",
  "'abc'[N]",
  "[1, 2][N]",
  "(1, 2)[N]",
  "'abcdef'[N:]",
  "'abcdef'[:N]",
  "'abcdef'[::N]",
  "[1, 2, 3][N::-1]",
  "range(10)[N:N]",
  "'abcabc'.find('b', N)",
  "'abcabc'.find('b', 0, N)",
  "'abcabc'.rfind('b', N)",
  "'abcabc'.rfind('b', 0, N)",
  "'abcabc'.index('b', N)",
  "'abcabc'.index('b', 0, N)",
  "'abcabc'.rindex('b', N)",
  "'abcabc'.rindex('b', 0, N)",
  "'abcabc'.count('b', N)",
  "'abcabc'.count('b', 0, N)",
  "'abc'.startswith('a', N)",
  "'abc'.startswith('a', 0, N)",
  "'abc'.endswith('c', N)",
  "'abc'.endswith('c', 0, N)",
  "(1, 2, 3)[N:]",
  "(1, 2, 3)[:N:-1]",
  "[1, 2, 3].index(2, N)",
  "[1, 2, 3].index(2, 0, N)",
  "'ab' * N",
  "N * [1]",
  "(1,) * N",
  "'' * N",
  "1 << N",
  "1 >> N",
  "'%c' % N",
  "N in range(10)",
  "N in range(-(1 << 63), (1 << 63) - 1)",
  // arbitrary precision
  "N << 1",
  "N >> 1",
  "'%d %x %o' % (N, N, N)",
  "hash(str(N))",
  "[abs(N), int(N), int(str(N)), -N, ~N, N // 7, N % 7]",
  "float(N)",
  "{N: 1}[N]",
  "[sorted([N, 1]), max(N, 1), min([N, 1]), sum([N, N])]",
  "json.decode(json.encode(N))",
  "'{}'.format(N)",
  "[N == N + 0.0, N < 1.0, N * 1.5, N / 2]",
  "[N & N, N | 1, N ^ 1]",
];

/** One template at one int, as a program returning the value (or failing). */
export function intParamProgram(template: string, n: bigint): string {
  return program(`return ${template.replaceAll("N", intLiteral(n))}`);
}

/**
 * Slice errors are reported at another column than starlark-go's (BUGS.md 23): their positions
 * are not compared.
 */
export function isSliceTemplate(src: string): boolean {
  return /\[[^\]]*:/.test(src);
}

/**
 * Random ints around the bounds of Go's int types (±2^k + small, k in 0..70) in every
 * template. Repetitions skip counts in [2^20, 2^30): starlark-go would build them (up to 4 GiB),
 * which would only measure the machine.
 */
export const intParamBoundaryProgram: fc.Arbitrary<string> = fc.tuple(
  fc.constantFrom(...INT_PARAM_TEMPLATES),
  fc.integer({ min: 0, max: 70 }),
  fc.boolean(),
  fc.bigInt({ min: -3n, max: 3n }),
).filter(([t, k]) => !(/\* N|N \*/.test(t) && k >= 20 && k < 30))
  .map(([t, k, neg, d]) => intParamProgram(t, (neg ? -(2n ** BigInt(k)) : 2n ** BigInt(k)) + d));
