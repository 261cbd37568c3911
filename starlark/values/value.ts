/**
 * Value representation. Chosen for speed on the hot path:
 * None = null, bool = boolean, int = number (safe integer) or bigint (outside ±2^53, always
 * normalised), string = binary JS string (one char per byte), everything else a class below.
 */
import { EvalError } from "../errors.ts";
import { current, DICT_BYTES, ELEM_BYTES, FLOAT_BYTES, SEQ_BYTES, STR_BYTES } from "../thread.ts";

export type Value = null | boolean | number | bigint | string | SObject;

/** Base of all heap values. */
export abstract class SObject {
  abstract readonly type: string;
}

export class Float extends SObject {
  readonly type = "float";
  constructor(readonly v: number) {
    super();
    current.alloc(FLOAT_BYTES);
  }
}

export class Bytes extends SObject {
  readonly type = "bytes";
  /** Cached structural hash (see hash.ts). */
  hc: number | undefined = undefined;
  constructor(readonly s: string) {
    super();
    current.alloc(STR_BYTES + s.length);
  }
}

/** Shared freeze/iteration state of mutable containers. */
export abstract class Mutable extends SObject {
  frozen = false;
  itercount = 0;
  checkMutable(verb: string, what: string): void {
    if (this.frozen) throw new EvalError(`cannot ${verb} frozen ${what}`);
    if (this.itercount > 0) throw new EvalError(`cannot ${verb} ${what} during iteration`);
  }
}

/** Lists, tuples and dicts charge their allocation (thread.ts) when constructed. */
export class List extends Mutable {
  readonly type = "list";
  constructor(public elems: Value[]) {
    super();
    current.alloc(SEQ_BYTES + ELEM_BYTES * elems.length);
  }
}

export class Tuple extends SObject {
  readonly type = "tuple";
  /** Cached structural hash (see hash.ts). */
  hc: number | undefined = undefined;
  constructor(readonly elems: Value[]) {
    super();
    current.alloc(SEQ_BYTES + ELEM_BYTES * elems.length);
  }
}

export const EMPTY_TUPLE = new Tuple([]);

/**
 * Insertion-ordered hash table. `map` is keyed by the key itself for scalars and by a canonical
 * key instance for tuples/bytes/bound methods, found through `chains` (structural hash →
 * canonical keys); use the functions of hash.ts (keyOf, keyFor, deleteKey) to address it.
 */
export class Dict extends Mutable {
  readonly type = "dict";
  map = new Map<unknown, [Value, Value]>();
  chains: Map<number, Value[]> | null = null;
  constructor() {
    super();
    current.alloc(DICT_BYTES);
  }
}

/** Cell holding a captured local variable. */
export class Cell {
  constructor(public v: Value | undefined) {}
}

/** A range's int64 fields, exact (see Range). */
export interface BigRange {
  start: bigint;
  stop: bigint;
  step: bigint;
  len: bigint;
}

/** Ints within this bound keep a range on the fast path: no element or length exceeds 2^53. */
const SMALL_RANGE = 2 ** 52;

/** Go's int64 arithmetic wraps. */
function w64(x: bigint): bigint {
  return BigInt.asIntN(64, x);
}

/**
 * starlark-go's rangeValue: start, stop, step and length are Go `int`s (int64), and its length
 * and element arithmetic wrap as Go's does (`len(range(-2**63, 2**63 - 1))` is -1 there, so
 * `len` fails). Ranges whose fields all lie within ±2^52 use plain numbers; others carry their
 * exact fields in `big` (the number fields then approximate them, for loop bounds and caps).
 */
export class Range extends SObject {
  readonly type = "range";
  readonly start: number;
  readonly stop: number;
  readonly step: number;
  readonly length: number;
  readonly big: BigRange | null;
  constructor(start: number | bigint, stop: number | bigint, step: number | bigint) {
    super();
    if (
      typeof start === "number" && typeof stop === "number" && typeof step === "number" &&
      Math.abs(start) <= SMALL_RANGE && Math.abs(stop) <= SMALL_RANGE &&
      Math.abs(step) <= SMALL_RANGE
    ) {
      this.start = start;
      this.stop = stop;
      this.step = step;
      this.length = step > 0
        ? (start < stop ? Math.floor((stop - start - 1) / step) + 1 : 0)
        : (start > stop ? Math.floor((start - stop - 1) / -step) + 1 : 0);
      this.big = null;
      return;
    }
    const b = {
      start: BigInt(start),
      stop: BigInt(stop),
      step: BigInt(step),
      len: 0n,
    };
    // rangeLen, each operation wrapping like Go's int
    if (b.step > 0n) {
      if (b.stop > b.start) b.len = w64(w64(w64(b.stop - 1n) - b.start) / b.step + 1n);
    } else if (b.start > b.stop) {
      b.len = w64(w64(w64(b.start - 1n) - b.stop) / w64(-b.step) + 1n);
    }
    this.big = b;
    this.start = Number(b.start);
    this.stop = Number(b.stop);
    this.step = Number(b.step);
    this.length = Number(b.len);
  }
  /** Element i (0 <= i < length): start + i*step in Go's int64. */
  at(i: number | bigint): number | bigint {
    const b = this.big;
    if (b === null) return this.start + Number(i) * this.step;
    const v = w64(b.start + w64(BigInt(i) * b.step));
    return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v;
  }
  /** The exact length as a Starlark int (negative when Go's length arithmetic wrapped). */
  lenValue(): number | bigint {
    const b = this.big;
    if (b === null) return this.length;
    return b.len >= -9007199254740991n && b.len <= 9007199254740991n ? Number(b.len) : b.len;
  }
}

/** Module value (json, math, host namespaces, the test `assert`). */
export class Module extends SObject {
  readonly type = "module";
  constructor(readonly name: string, readonly members: Map<string, Value>) {
    super();
  }
}

/** Result of str.elems() etc.: an iterable, non-indexable view. */
export class StringIterable extends SObject {
  readonly type: string;
  constructor(
    readonly s: string,
    readonly mode: "elems" | "elem_ords" | "codepoints" | "codepoint_ords",
    isBytes: boolean,
  ) {
    super();
    this.type = isBytes ? "bytes.elems" : mode.startsWith("codepoint") ? "codepoints" : "elems";
  }
}

/** Arguments as passed to builtins: positional values and [name, value] pairs. */
export type Kwargs = [string, Value][] | null;

/** Normalise a bigint result to a number when it is a safe integer. */
export function normInt(b: bigint): number | bigint {
  if (b >= -9007199254740991n && b <= 9007199254740991n) return Number(b);
  current.alloc(bigBytes(b));
  return b;
}

/** Bytes charged for a big int: a header and its magnitude. */
function bigBytes(b: bigint): number {
  const f = Math.abs(Number(b));
  if (f !== Infinity) return 16 + 8 * Math.ceil(Math.log2(f + 1) / 64);
  const hex = b.toString(16).length;
  current.charge(hex >> 6);
  return 16 + (hex >> 1);
}

/** Signature of native built-ins. `recv` is the receiver of a bound method. */
export type NativeFn = (
  // deno-lint-ignore no-explicit-any
  th: any,
  args: Value[],
  kwargs: Kwargs,
  recv: Value,
) => Value;

export class Builtin extends SObject {
  readonly type = "builtin_function_or_method";
  constructor(readonly name: string, readonly fn: NativeFn, readonly recv: Value = null) {
    super();
  }
  bind(recv: Value): Builtin {
    return new Builtin(this.name, this.fn, recv);
  }
}

/** Compiled function code shared by all closures of one def/lambda (see compiler). */
export interface FnCode {
  name: string;
  filename: string;
  line: number;
  col: number;
  /** Parameter names in order: positional, [*args], keyword-only, [**kwargs]. */
  paramNames: string[];
  numParams: number; // positional-or-keyword params
  numKwonly: number;
  hasVarargs: boolean;
  hasKwargs: boolean;
  nlocals: number;
  cells: number[];
  /** Runs the body; returns the result. */
  // deno-lint-ignore no-explicit-any
  body: (fr: any) => Value;
  /** >0 while running (recursion is forbidden in this dialect). */
  active: number;
}

export class Fn extends SObject {
  readonly type = "function";
  frozen = false;
  constructor(
    readonly code: FnCode,
    readonly defaults: (Value | undefined)[],
    readonly freevars: Cell[],
    readonly globals: (Value | undefined)[],
  ) {
    super();
  }
  get name(): string {
    return this.code.name;
  }
}
