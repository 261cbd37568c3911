/** Methods of list and dict values. */
import { EvalError } from "../errors.ts";
import { clearDict, deleteKey, equals, keyOf } from "../values/hash.ts";
import { current, ELEM_BYTES } from "../thread.ts";
import { dictSet, extendList, indices, mustElements } from "../values/seq.ts";
import {
  type Dict,
  List,
  type Mutable,
  type NativeFn,
  Tuple,
  type Value,
} from "../values/value.ts";
import { intParam, positional } from "./args.ts";
import { dictUpdate } from "./update.ts";

function mutable(fname: string, x: Mutable, verb: string, what: string): void {
  try {
    x.checkMutable(verb, what);
  } catch (e) {
    throw new EvalError(`${fname}: ${(e as Error).message}`);
  }
}

function L(v: Value): List {
  return v as List;
}
function D(v: Value): Dict {
  return v as Dict;
}

/** starlark-go's `indices` for `list.index`, its errors prefixed with the method name. */
function clampIndices(
  start: Value | undefined,
  end: Value | undefined,
  n: number,
): [number, number] {
  try {
    return indices(start, end, n);
  } catch (e) {
    throw new EvalError(`index: ${(e as Error).message}`);
  }
}

export const LIST_METHODS = new Map<string, NativeFn>([
  ["append", (_th, a, k, r) => {
    const [x] = positional("append", a, k, 1, 1);
    mutable("append", L(r), "append to", "list");
    current.alloc(ELEM_BYTES);
    L(r).elems.push(x);
    return null;
  }],
  ["clear", (_th, a, k, r) => {
    positional("clear", a, k, 0, 0);
    mutable("clear", L(r), "clear", "list");
    L(r).elems = [];
    return null;
  }],
  ["extend", (th, a, k, r) => {
    const [it] = positional("extend", a, k, 1, 1);
    mutable("extend", L(r), "extend", "list");
    extendList(th, L(r), mustElements(it, "extend", th));
    return null;
  }],
  ["index", (_th, a, k, r) => {
    const [x, start, end] = positional("index", a, k, 1, 3);
    const el = L(r).elems;
    const [i0, i1] = clampIndices(start, end, el.length);
    for (let i = i0; i < i1; i++) {
      if ((i & 7) === 7) current.step();
      if (equals(el[i], x)) return i;
    }
    throw new EvalError("index: value not in list");
  }],
  ["insert", (_th, a, k, r) => {
    const [iv, x] = positional("insert", a, k, 2, 2);
    const iw = intParam("insert", iv, 1);
    mutable("insert", L(r), "insert into", "list");
    const el = L(r).elems;
    // an index beyond ±2^53 (int64, as starlark-go) is past either end of any list
    let i = typeof iw === "bigint" ? (iw < 0n ? -Infinity : Infinity) : iw;
    if (i < 0) i += el.length;
    current.alloc(ELEM_BYTES);
    current.charge(el.length >> 5); // moving the tail
    if (i >= el.length) el.push(x);
    else el.splice(i < 0 ? 0 : i, 0, x);
    return null;
  }],
  ["pop", (_th, a, k, r) => {
    const el = L(r).elems;
    const [iv] = positional("pop", a, k, 0, 1);
    const n = el.length;
    const orig = iv === undefined ? n - 1 : intParam("pop", iv, 1);
    // an index beyond ±2^53 (int64, as starlark-go) is out of range of any list
    let i = typeof orig === "bigint" ? -Infinity : orig;
    if (i < 0) i += n;
    if (i < 0 || i >= n) {
      throw new EvalError(
        n === 0
          ? `pop: index ${orig} out of range: empty list`
          : `pop: list index ${orig} out of range [${-n}:${n - 1}]`,
      );
    }
    mutable("pop", L(r), "pop from", "list");
    if (i === n - 1) return el.pop()!;
    current.charge(n >> 5);
    return el.splice(i, 1)[0];
  }],
  ["remove", (_th, a, k, r) => {
    const [x] = positional("remove", a, k, 1, 1);
    mutable("remove", L(r), "remove from", "list");
    const el = L(r).elems;
    for (let i = 0; i < el.length; i++) {
      if ((i & 7) === 7) current.step();
      if (equals(el[i], x)) {
        current.charge(el.length >> 5);
        el.splice(i, 1);
        return null;
      }
    }
    throw new EvalError("remove: element not found");
  }],
]);

export const DICT_METHODS = new Map<string, NativeFn>([
  ["clear", (_th, a, k, r) => {
    positional("clear", a, k, 0, 0);
    mutable("clear", D(r), "clear", "hash table");
    clearDict(D(r));
    return null;
  }],
  ["get", (_th, a, k, r) => {
    const [key, dflt] = positional("get", a, k, 1, 2);
    let hk: unknown;
    try {
      hk = keyOf(D(r), key);
    } catch (e) {
      throw new EvalError(`get: ${(e as Error).message}`);
    }
    const e = D(r).map.get(hk);
    if (e !== undefined) return e[1];
    return dflt === undefined ? null : dflt;
  }],
  ["items", (_th, a, k, r) => {
    positional("items", a, k, 0, 0);
    const out: Value[] = [];
    current.charge(D(r).map.size >> 2);
    for (const [kk, v] of D(r).map.values()) out.push(new Tuple([kk, v]));
    return new List(out);
  }],
  ["keys", (_th, a, k, r) => {
    positional("keys", a, k, 0, 0);
    current.charge(D(r).map.size >> 3);
    const out: Value[] = [];
    for (const e of D(r).map.values()) out.push(e[0]);
    return new List(out);
  }],
  ["values", (_th, a, k, r) => {
    positional("values", a, k, 0, 0);
    current.charge(D(r).map.size >> 3);
    const out: Value[] = [];
    for (const e of D(r).map.values()) out.push(e[1]);
    return new List(out);
  }],
  ["pop", (_th, a, k, r) => {
    const [key, dflt] = positional("pop", a, k, 1, 2);
    const d = D(r);
    mutable("pop", d, "delete from", "hash table");
    // starlark-go does not hash the key when the table was never filled
    if (d.map.size === 0) {
      if (dflt !== undefined) return dflt;
      throw new EvalError("pop: missing key");
    }
    let hk: unknown;
    try {
      hk = keyOf(d, key);
    } catch (e) {
      throw new EvalError(`pop: ${(e as Error).message}`);
    }
    mutable("pop", d, "delete from", "hash table");
    const e = d.map.get(hk);
    if (e !== undefined) {
      deleteKey(d, hk);
      return e[1];
    }
    if (dflt !== undefined) return dflt;
    throw new EvalError("pop: missing key");
  }],
  ["popitem", (_th, a, k, r) => {
    positional("popitem", a, k, 0, 0);
    const d = D(r);
    const first = d.map.entries().next();
    if (first.done) throw new EvalError("popitem: empty dict");
    mutable("popitem", d, "delete from", "hash table");
    deleteKey(d, first.value[0]);
    return new Tuple([first.value[1][0], first.value[1][1]]);
  }],
  ["setdefault", (_th, a, k, r) => {
    const [key, dflt] = positional("setdefault", a, k, 1, 2);
    const d = D(r);
    let hk: unknown;
    try {
      hk = keyOf(d, key);
    } catch (e) {
      throw new EvalError(`setdefault: ${(e as Error).message}`);
    }
    const e = d.map.get(hk);
    if (e !== undefined) return e[1];
    const v = dflt === undefined ? null : dflt;
    try {
      dictSet(d, key, v);
    } catch (err) {
      throw new EvalError(`setdefault: ${(err as Error).message}`);
    }
    return v;
  }],
  ["update", (th, a, k, r) => {
    if (a.length > 1) throw new EvalError(`update: got ${a.length} arguments, want at most 1`);
    try {
      dictUpdate(th, D(r), a, k);
    } catch (err) {
      if (err instanceof EvalError && !err.message.startsWith("update: ")) {
        throw new EvalError(`update: ${err.message}`);
      }
      throw err;
    }
    return null;
  }],
]);
