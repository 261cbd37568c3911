/** str() and repr() of values, matching starlark-go's output. */
import { current } from "../thread.ts";
import { LimitError } from "../errors.ts";
import { decodeRune } from "./bytes_text.ts";
import { formatFloat } from "./float_format.ts";
import { intToDecimal, typeName } from "./ops.ts";
import {
  Builtin,
  Bytes,
  Dict,
  Float,
  Fn,
  List,
  Module,
  Range,
  StringIterable,
  Tuple,
  type Value,
} from "./value.ts";

const HEX = "0123456789abcdef";
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Go strconv.Quote over a binary (UTF-8) string; `prefix` "b" for bytes. */
export function quote(s: string, prefix = ""): string {
  // common case: printable ASCII with nothing to escape
  if (s.length > 256) current.charge(s.length >> 4);
  if (/^[\x20\x21\x23-\x5b\x5d-\x7e]*$/.test(s)) return prefix + '"' + s + '"';
  let out = prefix + '"';
  for (let i = 0, k = 0; i < s.length;) {
    if ((++k & 0x3fff) === 0) current.charge(2048); // per-byte JS work, with time checks
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      i++;
      switch (c) {
        case 0x22:
          out += '\\"';
          continue;
        case 0x5c:
          out += "\\\\";
          continue;
        case 7:
          out += "\\a";
          continue;
        case 8:
          out += "\\b";
          continue;
        case 12:
          out += "\\f";
          continue;
        case 10:
          out += "\\n";
          continue;
        case 13:
          out += "\\r";
          continue;
        case 9:
          out += "\\t";
          continue;
        case 11:
          out += "\\v";
          continue;
      }
      if (c < 0x20 || c === 0x7f) out += "\\x" + HEX[c >> 4] + HEX[c & 15];
      else out += String.fromCharCode(c);
      continue;
    }
    const [r, n] = decodeRune(s, i);
    if (r === 0xfffd && n === 1) {
      out += "\\x" + HEX[c >> 4] + HEX[c & 15];
      i++;
      continue;
    }
    const ch = String.fromCodePoint(r);
    if (PRINTABLE.test(ch)) out += s.slice(i, i + n);
    else if (r < 0x10000) out += "\\u" + r.toString(16).padStart(4, "0");
    else out += "\\U" + r.toString(16).padStart(8, "0");
    i += n;
  }
  return out + '"';
}

/** Hard cap on the text of one str()/repr(), whatever the budgets. */
const MAX_REPR = 1 << 27;

/** Step/time accounting while building text (a Thread). */
interface Meter {
  charge(n: number): void;
}

export function str(v: Value, limit = MAX_REPR, meter?: Meter): string {
  return typeof v === "string" ? v : repr(v, limit, meter);
}

/** repr(v); fails with a max_bytes LimitError once the text would exceed `limit` bytes. */
export function repr(v: Value, limit = MAX_REPR, meter?: Meter): string {
  switch (typeof v) {
    case "string":
      return quote(v);
    case "number":
      return String(v);
    case "bigint":
      return intToDecimal(v);
    case "boolean":
      return v ? "True" : "False";
  }
  if (v === null) return "None";
  const out = new Sink(Math.min(limit, MAX_REPR), meter);
  writeValue(out, v, []);
  return out.parts.join("");
}

/** Collects output pieces, enforcing the size limit as it grows. */
class Sink {
  parts: string[] = [];
  size = 0;
  constructor(readonly limit: number, readonly meter?: Meter) {}
  push(...xs: string[]): void {
    for (const x of xs) {
      // a step per 64 pieces and per 64 bytes: long conversions hit the step and time budgets
      if (this.meter !== undefined && (this.parts.length & 63) === 0) this.meter.charge(1);
      if (x.length > 64) current.charge(x.length >> 6);
      this.size += x.length;
      if (this.size > this.limit) {
        throw new LimitError(
          "max_bytes",
          `Starlark computation cancelled: value size exceeds limit ${this.limit}`,
        );
      }
      this.parts.push(x);
    }
  }
}

function writeValue(out: Sink, v: Value, path: unknown[]): void {
  if (typeof v !== "object" || v === null) {
    out.push(repr(v));
    return;
  }
  if (v instanceof Float) {
    out.push(formatFloat(v.v));
    return;
  }
  if (v instanceof List || v instanceof Tuple || v instanceof Dict) {
    if (path.includes(v)) {
      out.push(v instanceof List ? "[...]" : v instanceof Dict ? "{...}" : "(...)");
      return;
    }
    path.push(v);
    if (v instanceof Dict) {
      out.push("{");
      let first = true;
      for (const [k, val] of v.map.values()) {
        if (!first) out.push(", ");
        first = false;
        writeValue(out, k, path);
        out.push(": ");
        writeValue(out, val, path);
      }
      out.push("}");
    } else {
      const isList = v instanceof List;
      out.push(isList ? "[" : "(");
      const e = v.elems;
      for (let i = 0; i < e.length; i++) {
        if (i > 0) out.push(", ");
        writeValue(out, e[i], path);
      }
      if (!isList && e.length === 1) out.push(",");
      out.push(isList ? "]" : ")");
    }
    path.pop();
    return;
  }
  out.push(reprOther(v));
}

function reprOther(v: Value): string {
  if (v instanceof Bytes) return quote(v.s, "b");
  if (v instanceof Fn) return `<function ${v.name}>`;
  if (v instanceof Builtin) {
    if (v.recv !== null) {
      const t = v.recv instanceof Module ? v.recv.name : typeName(v.recv);
      return `<built-in method ${v.name} of ${t} value>`;
    }
    return `<built-in function ${v.name}>`;
  }
  if (v instanceof Module) return `<module "${v.name}">`;
  if (v instanceof Range) {
    const { start, stop, step } = v.big ?? v;
    // deno-lint-ignore eqeqeq -- a number or a bigint, compared by value
    if (step != 1) return `range(${start}, ${stop}, ${step})`;
    // deno-lint-ignore eqeqeq -- a number or a bigint, compared by value
    if (start != 0) return `range(${start}, ${stop})`;
    return `range(${stop})`;
  }
  if (v instanceof StringIterable) {
    return `${v.type.startsWith("bytes") ? quote(v.s, "b") : quote(v.s)}.${v.mode}()`;
  }
  const custom = (v as { repr?: () => string }).repr;
  if (custom) return custom.call(v);
  return `<${(v as { type: string }).type}>`;
}
