/** Binary and unary operators (slow paths; the compiler inlines int/string fast paths). */
import { EvalError } from "../errors.ts";
import type { Thread } from "../thread.ts";
import { interpolate } from "../lib/percent_format.ts";
import {
  addInt,
  compare,
  floatMod,
  floorDivInt,
  intToFloat,
  modInt,
  mulInt,
  subInt,
  toBig,
  truth,
  typeName,
} from "./ops.ts";
import { STR_BYTES } from "../thread.ts";
import { dictPut, equals } from "./hash.ts";
import { contains } from "./seq.ts";
import { Bytes, Dict, Float, List, normInt, Tuple, type Value } from "./value.ts";

/** Absolute cap on elements/bytes built by one repetition, independent of budgets. */
const MAX_ALLOC = 1 << 28;

function isIntV(v: Value): v is number | bigint {
  return typeof v === "number" || typeof v === "bigint";
}

function num(v: Value): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return intToFloat(v);
  if (v instanceof Float) return v.v;
  return undefined;
}

export function binary(op: string, x: Value, y: Value, th: Thread): Value {
  switch (op) {
    case "+":
      if (isIntV(x) && isIntV(y)) return addInt(x, y);
      if (typeof x === "string" && typeof y === "string") {
        th.charge((x.length + y.length) >> 6);
        th.checkAlloc(x.length + y.length);
        th.alloc(STR_BYTES + x.length + y.length);
        return x + y;
      }
      if ((x instanceof Float || isIntV(x)) && (y instanceof Float || isIntV(y))) {
        return new Float(num(x)! + num(y)!);
      }
      if (x instanceof List && y instanceof List) {
        th.charge((x.elems.length + y.elems.length) >> 3);
        th.checkAlloc((x.elems.length + y.elems.length) * 8);
        return new List(x.elems.concat(y.elems));
      }
      if (x instanceof Tuple && y instanceof Tuple) {
        th.charge((x.elems.length + y.elems.length) >> 3);
        return new Tuple(x.elems.concat(y.elems));
      }
      // bytes + bytes is "unknown binary op", as in starlark-go (which has no bytes case here)
      break;
    case "-":
      if (isIntV(x) && isIntV(y)) return subInt(x, y);
      if ((x instanceof Float || isIntV(x)) && (y instanceof Float || isIntV(y))) {
        return new Float(num(x)! - num(y)!);
      }
      break;
    case "*":
      if (isIntV(x) && isIntV(y)) return mulInt(x, y);
      if ((x instanceof Float || isIntV(x)) && (y instanceof Float || isIntV(y))) {
        return new Float(num(x)! * num(y)!);
      }
      if (isIntV(x)) return repeat(y, x, th, op, x, y);
      if (isIntV(y)) return repeat(x, y, th, op, x, y);
      break;
    case "/": {
      const a = num(x), b = num(y);
      if (a !== undefined && b !== undefined) {
        if (b === 0) throw new EvalError("floating-point division by zero");
        return new Float(a / b);
      }
      break;
    }
    case "//":
      if (isIntV(x) && isIntV(y)) return floorDivInt(x, y);
      {
        const a = num(x), b = num(y);
        if (a !== undefined && b !== undefined) {
          if (b === 0) throw new EvalError("floored division by zero");
          return new Float(Math.floor(a / b));
        }
      }
      break;
    case "%":
      if (isIntV(x) && isIntV(y)) return modInt(x, y);
      if (typeof x === "string") return interpolate(x, y, th);
      {
        const a = num(x), b = num(y);
        if (a !== undefined && b !== undefined) {
          if (b === 0) throw new EvalError("floating-point modulo by zero");
          return new Float(floatMod(a, b));
        }
      }
      break;
    case "in":
      return contains(y, x);
    case "not in":
      return !contains(y, x);
    case "==":
      return equals(x, y);
    case "!=":
      return !equals(x, y);
    case "<":
      return compare(op, x, y) < 0;
    case "<=":
      return compare(op, x, y) <= 0;
    case ">":
      return compare(op, x, y) > 0;
    case ">=":
      return compare(op, x, y) >= 0;
    case "|":
      if (isIntV(x) && isIntV(y)) {
        if (typeof x === "number" && typeof y === "number" && (x | 0) === x && (y | 0) === y) {
          return x | y;
        }
        return normInt(toBig(x) | toBig(y));
      }
      if (x instanceof Dict && y instanceof Dict) {
        const d = new Dict();
        th.charge((x.map.size + y.map.size) >> 2);
        for (const e of x.map.values()) dictPut(d, e[0], e[1]);
        for (const e of y.map.values()) dictPut(d, e[0], e[1]);
        return d;
      }
      break;
    case "&":
      if (isIntV(x) && isIntV(y)) {
        if (typeof x === "number" && typeof y === "number" && (x | 0) === x && (y | 0) === y) {
          return x & y;
        }
        return normInt(toBig(x) & toBig(y));
      }
      break;
    case "^":
      if (isIntV(x) && isIntV(y)) {
        if (typeof x === "number" && typeof y === "number" && (x | 0) === x && (y | 0) === y) {
          return x ^ y;
        }
        return normInt(toBig(x) ^ toBig(y));
      }
      break;
    case "<<":
    case ">>":
      if (isIntV(x)) {
        // starlark-go takes the count with AsInt32: beyond int32 it is "out of range"
        if (typeof y !== "number" || y > 2147483647 || y < -2147483648) {
          if (isIntV(y)) throw new EvalError(`${y} out of range`);
          throw new EvalError(`got ${typeName(y)}, want int`);
        }
        if (y < 0) throw new EvalError(`negative shift count: ${y}`);
        if (op === "<<") {
          if (y >= 512) throw new EvalError(`shift count too large: ${y}`);
          return normInt(toBig(x) << BigInt(y));
        }
        return normInt(toBig(x) >> BigInt(y > 100000 ? 100000 : y));
      }
      break;
  }
  // application-defined types may implement binary operators
  const hx = x !== null && typeof x === "object"
    ? (x as { binary?: (op: string, y: Value, left: boolean) => Value | undefined }).binary
    : undefined;
  if (hx) {
    const r = hx.call(x, op, y, true);
    if (r !== undefined) return r;
  }
  const hy = y !== null && typeof y === "object"
    ? (y as { binary?: (op: string, x: Value, left: boolean) => Value | undefined }).binary
    : undefined;
  if (hy) {
    const r = hy.call(y, op, x, false);
    if (r !== undefined) return r;
  }
  throw new EvalError(`unknown binary op: ${typeName(x)} ${op} ${typeName(y)}`);
}

function repeat(seq: Value, n: number | bigint, th: Thread, op: string, x: Value, y: Value): Value {
  if (
    !(typeof seq === "string" || seq instanceof List || seq instanceof Tuple ||
      seq instanceof Bytes)
  ) {
    throw new EvalError(`unknown binary op: ${typeName(x)} ${op} ${typeName(y)}`);
  }
  const empty = typeof seq === "string"
    ? seq === ""
    : seq instanceof Bytes
    ? seq.s === ""
    : seq.elems.length === 0;
  if (!empty && (typeof n === "bigint" || n > 2147483647 || n < -2147483648)) {
    throw new EvalError(`repeat count ${n} too large`);
  }
  if (empty || n <= 0) {
    return typeof seq === "string"
      ? ""
      : seq instanceof List
      ? new List([])
      : seq instanceof Bytes
      ? new Bytes("")
      : new Tuple([]);
  }
  const count = n as number; // in int32 range here
  const len = typeof seq === "string"
    ? seq.length
    : seq instanceof Bytes
    ? seq.s.length
    : seq.elems.length;
  const total = len * count;
  // starlark-go's limit (2^30), then the budgets, then hard caps whatever the budgets: 2^27
  // bytes, 2^24 list elements
  const excessive = () => new EvalError(`excessive repeat (${len} * ${count} elements)`);
  if (total >= 1 << 30) throw excessive();
  const isText = typeof seq === "string" || seq instanceof Bytes;
  th.charge(total >> 4);
  th.checkAlloc(isText ? total : total * 8);
  if (typeof seq === "string") th.alloc(STR_BYTES + total); // (others charge when built)
  if (total >= (isText ? MAX_ALLOC >> 1 : MAX_ALLOC >> 4)) throw excessive();
  if (typeof seq === "string") return seq.repeat(count);
  if (seq instanceof Bytes) return new Bytes(seq.s.repeat(count));
  const out: Value[] = new Array(total);
  for (let i = 0; i < total; i++) out[i] = seq.elems[i % len];
  return seq instanceof List ? new List(out) : new Tuple(out);
}

export function unary(op: string, x: Value): Value {
  switch (op) {
    case "not":
      return !truth(x);
    case "-":
      if (typeof x === "number") return x === 0 ? 0 : -x;
      if (typeof x === "bigint") return normInt(-x);
      if (x instanceof Float) return new Float(-x.v);
      break;
    case "+":
      if (typeof x === "number" || typeof x === "bigint") return x;
      if (x instanceof Float) return x;
      break;
    case "~":
      if (typeof x === "number" && (x | 0) === x) return ~x;
      if (typeof x === "number" || typeof x === "bigint") return normInt(~toBig(x));
      break;
  }
  throw new EvalError(`unknown unary op: ${op} ${typeName(x)}`);
}
