/** The `%` string interpolation operator (starlark-go's `interpolate`). */
import { newStr } from "../thread.ts";
import { EvalError } from "../errors.ts";
import type { Thread } from "../thread.ts";
import { decodeRune, encodeRune } from "../values/bytes_text.ts";
import { formatE, formatF, formatFloat, formatG } from "../values/float_format.ts";
import { floatToInt, intToDecimal, toBig, typeName } from "../values/ops.ts";
import { repr, str } from "../values/repr.ts";
import { Dict, Float, Tuple, type Value } from "../values/value.ts";

function formatFloatConv(f: number, c: string): string {
  if (!Number.isFinite(f)) return formatFloat(f);
  switch (c) {
    case "e":
    case "E":
      return formatE(f, 6, c === "E");
    case "f":
    case "F":
      return formatF(f, 6);
    default: {
      const s = formatG(f, c === "G");
      return s.includes(".") || s.includes(c === "G" ? "E" : "e") ? s : s + ".0";
    }
  }
}

export function interpolate(format: string, x: Value, th: Thread): string {
  let buf = "";
  let index = 0;
  const nargs = x instanceof Tuple ? x.elems.length : 1;
  for (;;) {
    const i = format.indexOf("%");
    if (i < 0) {
      buf += format;
      break;
    }
    buf += format.slice(0, i);
    format = format.slice(i + 1);
    if (format[0] === "%") {
      buf += "%";
      format = format.slice(1);
      continue;
    }
    let arg: Value;
    if (format[0] === "(") {
      format = format.slice(1);
      const j = format.indexOf(")");
      if (j < 0) throw new EvalError("incomplete format key");
      const key = format.slice(0, j);
      if (!(x instanceof Dict)) throw new EvalError("format requires a mapping");
      const e = x.map.get(key); // string keys are their own map keys
      if (e === undefined) throw new EvalError(`key not found: ${key}`);
      arg = e[1];
      format = format.slice(j + 1);
    } else {
      if (index >= nargs) throw new EvalError("not enough arguments for format string");
      arg = x instanceof Tuple ? x.elems[index] : x;
    }
    if (format === "") throw new EvalError("incomplete format");
    const [cp, size] = decodeRune(format, 0);
    const c = format.slice(0, size);
    format = format.slice(size);
    switch (c) {
      case "s":
        buf += str(arg, th.maxBytes, th);
        break;
      case "r":
        buf += repr(arg, th.maxBytes, th);
        break;
      case "d":
      case "i":
      case "o":
      case "x":
      case "X": {
        let n: number | bigint;
        if (typeof arg === "number" || typeof arg === "bigint") n = arg;
        else if (arg instanceof Float) {
          try {
            n = floatToInt(arg.v);
          } catch (e) {
            throw new EvalError(`%${c} format requires integer: ${(e as Error).message}`);
          }
        } else {throw new EvalError(
            `%${c} format requires integer: cannot convert ${typeName(arg)} to int`,
          );}
        const b = toBig(n);
        const radix = c === "o" ? 8 : c === "x" || c === "X" ? 16 : 10;
        const mag = b < 0n ? -b : b;
        const txt = (b < 0n ? "-" : "") + (radix === 10 ? intToDecimal(mag) : mag.toString(radix));
        buf += c === "X" ? txt.toUpperCase() : txt;
        break;
      }
      case "e":
      case "f":
      case "g":
      case "E":
      case "F":
      case "G": {
        let f: number;
        if (arg instanceof Float) f = arg.v;
        else if (typeof arg === "number") f = arg;
        else if (typeof arg === "bigint") f = Number(arg);
        else throw new EvalError(`%${c} format requires float, not ${typeName(arg)}`);
        buf += formatFloatConv(f, c);
        break;
      }
      case "c":
        if (typeof arg === "number" || typeof arg === "bigint") {
          if (typeof arg === "bigint" || arg < 0 || arg > 0x10ffff) {
            throw new EvalError(`%c format requires a valid Unicode code point, got ${arg}`);
          }
          buf += encodeRune(arg);
        } else if (typeof arg === "string") {
          const [, n] = arg.length ? decodeRune(arg, 0) : [0, 0];
          if (n !== arg.length || arg.length === 0) {
            throw new EvalError("%c format requires a single-character string");
          }
          buf += arg;
        } else {throw new EvalError(
            `%c format requires int or single-character string, not ${typeName(arg)}`,
          );}
        break;
      default:
        void cp;
        // starlark-go prints the first byte as a rune (cosmetic, but kept identical)
        throw new EvalError(`unknown conversion %${encodeRune(c.charCodeAt(0))}`);
    }
    th.checkAlloc(buf.length);
    index++;
  }
  if (index < nargs) throw new EvalError("too many arguments for format string");
  th.charge(buf.length >> 6);
  return newStr(buf);
}
