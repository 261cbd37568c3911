/** Built-ins that convert between types: bool, bytes, chr, float, hash, int, ord, repr, str, type. */
import { current, newStr, STR_BYTES } from "../thread.ts";
import { chargeScan } from "../values/text_search.ts";
import { EvalError } from "../errors.ts";
import { decodeRune, encodeRune, runes } from "../values/bytes_text.ts";
import { floatToInt, intToFloat, MAX_INT_BITS, truth, typeName } from "../values/ops.ts";
import { repr, str } from "../values/repr.ts";
import { elements } from "../values/seq.ts";
import { Bytes, Float, type NativeFn, normInt, type Value } from "../values/value.ts";
import { positional, unpackArgs } from "./args.ts";

function javaStringHash(bin: string): number {
  // starlark-go's javaStringHash: h = 31*h + rune over code points (int32 wrap-around);
  // its surrogate branch never fires for runes decoded from UTF-8
  let h = 0;
  for (let i = 0, k = 0; i < bin.length;) {
    if ((++k & 0x3fff) === 0) current.charge(4096);
    const [r, n] = decodeRune(bin, i);
    h = (Math.imul(h, 31) + r) | 0;
    i += n;
  }
  return h;
}

function parseIntString(s: string, base: number | undefined): Value {
  const orig = s;
  let b = base ?? 10;
  let neg = false;
  if (s[0] === "+") s = s.slice(1);
  else if (s[0] === "-") {
    neg = true;
    s = s.slice(1);
  }
  const invalid = () =>
    new EvalError(`int: invalid literal with base ${b} : ${orig}`.replace(" : ", ": "));
  let prefix = 0;
  if (s.length > 1 && s[0] === "0") {
    if (s.length > 2) {
      const c = s[1].toLowerCase();
      if (c === "o") prefix = 8;
      else if (c === "x") prefix = 16;
      else if (c === "b") prefix = 2;
    }
    if (prefix !== 0) {
      // The spec: a prefix matching an explicit base is permitted; one that does not is read
      // as digits when the base allows (`int("0b1", 16)` is 0xb1), as newer starlark-go does.
      if (b === 0 || prefix === b) s = s.slice(2);
    } else if (b === 0) {
      if (/^0+$/.test(s)) return 0;
      throw invalid();
    }
  }
  if (b === 0) b = prefix || 10;
  const digits = "0123456789abcdefghijklmnopqrstuvwxyz".slice(0, b);
  if (s === "" || ![...s.toLowerCase()].every((c) => digits.includes(c) || c === "_")) {
    throw invalid();
  }
  if (s.includes("_")) {
    // Go's big.Int.SetString accepts underscores only with base 0 prefixes; reject here
    throw invalid();
  }
  // refuse past the int size cap before any quadratic conversion work, then let V8 parse
  const bits = s.length * Math.log2(b);
  if (bits > MAX_INT_BITS + 64) {
    current.fail(
      "max_bytes",
      `Starlark computation cancelled: int result exceeds ${MAX_INT_BITS} bits`,
    );
  }
  if (s.length > 64) current.charge(Math.floor((bits * bits) / 65536));
  const prefixed = { 2: "0b", 8: "0o", 10: "", 16: "0x" }[b as 2 | 8 | 10 | 16];
  let v = 0n;
  if (prefixed !== undefined) v = BigInt(prefixed + s);
  else {
    const B = BigInt(b);
    for (const c of s.toLowerCase()) v = v * B + BigInt(digits.indexOf(c));
  }
  return normInt(neg ? -v : v);
}

function floatFromString(s: string): number {
  if (s === "") throw new EvalError("float: empty string");
  const l = s.toLowerCase();
  if (l === "inf" || l === "+inf" || l === "infinity" || l === "+infinity") return Infinity;
  if (l === "-inf" || l === "-infinity") return -Infinity;
  if (l === "nan" || l === "+nan" || l === "-nan") return NaN;
  // strconv.ParseFloat syntax: underscores between digits, hexadecimal mantissa with p exponent
  const D = "\\d+(?:_\\d+)*", H = "[0-9a-fA-F]+(?:_[0-9a-fA-F]+)*";
  const dec = new RegExp(`^[+-]?(?:${D}(?:\\.(?:${D})?)?|\\.${D})(?:[eE][+-]?${D})?$`);
  const hex = new RegExp(`^([+-]?)0[xX]_?((?:${H})?(?:\\.(?:${H})?)?)[pP]([+-]?${D})$`);
  let f: number;
  const hm = hex.exec(s);
  if (dec.test(s)) f = Number(s.replace(/_/g, ""));
  else if (hm && /[0-9a-fA-F]/.test(hm[2])) {
    const [ip, fp = ""] = hm[2].replace(/_/g, "").split(".");
    const mant = parseInt((ip || "0") + fp, 16);
    f = mant * Math.pow(2, Number(hm[3].replace(/_/g, "")) - 4 * fp.length);
    if (hm[1] === "-") f = -f;
  } else throw new EvalError(`invalid float literal: ${s}`);
  if (!Number.isFinite(f)) throw new EvalError("floating-point number too large");
  return f;
}

export const CONVERT_BUILTINS: [string, NativeFn][] = [
  ["bool", (_th, a, k) => {
    const [x] = positional("bool", a, k, 0, 1);
    return x === undefined ? false : truth(x);
  }],
  ["bytes", (th, a, k) => {
    const [x] = positional("bytes", a, k, 1, 1);
    if (typeof x === "string") {
      // transcode, replacing invalid UTF-8 with U+FFFD
      let out = "";
      for (let i = 0; i < x.length;) {
        const [r, n] = decodeRune(x, i);
        out += r === 0xfffd && n === 1 ? encodeRune(0xfffd) : x.slice(i, i + n);
        i += n;
      }
      return new Bytes(out);
    }
    if (x instanceof Bytes) return x;
    const el = elements(x, th);
    if (el === null) {
      throw new EvalError(`bytes: got ${typeName(x)}, want string, bytes, or iterable of ints`);
    }
    th.charge(el.length >> 3);
    let out = "";
    for (const v of el) {
      if (typeof v !== "number" || v < 0 || v > 255) {
        throw new EvalError(
          `bytes: at index ${out.length}, ${
            typeof v === "number" || typeof v === "bigint"
              ? `${v} out of range (want value in unsigned 8-bit range)`
              : `got ${typeName(v)}, want int`
          }`,
        );
      }
      out += String.fromCharCode(v);
    }
    return new Bytes(out);
  }],
  ["chr", (_th, a, k) => {
    if (k !== null && k.length > 0) throw new EvalError("chr does not accept keyword arguments");
    if (a.length !== 1) throw new EvalError(`chr: got ${a.length} arguments, want 1`);
    const x = a[0];
    if (typeof x !== "number" || x > 2147483647 || x < -2147483648) {
      // AsInt32, as starlark-go
      if (typeof x === "bigint" || typeof x === "number") {
        throw new EvalError(`chr: ${x} out of range`);
      }
      throw new EvalError(`chr: got ${typeName(x)}, want int`);
    }
    if (x < 0) throw new EvalError(`chr: Unicode code point ${x} out of range (<0)`);
    if (x > 0x10ffff) {
      throw new EvalError(
        `chr: Unicode code point U+${x.toString(16).toUpperCase()} out of range (>0x10FFFF)`,
      );
    }
    return encodeRune(x);
  }],
  ["float", (_th, a, k) => {
    if (k !== null && k.length > 0) throw new EvalError("float does not accept keyword arguments");
    if (a.length === 0) return new Float(0);
    if (a.length !== 1) throw new EvalError(`float got ${a.length} arguments, wants 1`);
    const x = a[0];
    if (typeof x === "boolean") return new Float(x ? 1 : 0);
    if (typeof x === "number" || typeof x === "bigint") return new Float(intToFloat(x));
    if (x instanceof Float) return x;
    if (typeof x === "string") return new Float(floatFromString(x));
    throw new EvalError(`float got ${typeName(x)}, want number or string`);
  }],
  ["hash", (th, a, k) => {
    const [x] = positional("hash", a, k, 1, 1);
    if (typeof x === "string") return javaStringHash(x);
    if (x instanceof Bytes) {
      // FNV-1a, unsigned as starlark-go's uint32 (hash(b"") == 2166136261)
      th.charge(x.s.length >> 5);
      let h = 0x811c9dc5;
      for (let i = 0; i < x.s.length; i++) h = Math.imul(h ^ x.s.charCodeAt(i), 0x01000193);
      return h >>> 0;
    }
    // newer starlark-go's text (the 2021 snapshot, without bytes, says "for parameter 1: got X,
    // want string"); no "unhashable" error
    throw new EvalError(`hash: got ${typeName(x)}, want string or bytes`);
  }],
  ["int", (_th, a, k) => {
    const [x, base] = unpackArgs("int", a, k, ["x", "base?"]);
    if (x === undefined) return 0;
    if (typeof x === "string") {
      let b: number | undefined;
      if (base !== undefined) {
        if (typeof base !== "number" || (base !== 0 && (base < 2 || base > 36))) {
          throw new EvalError("int: base must be an integer >= 2 && <= 36");
        }
        b = base;
      }
      return parseIntString(x, b);
    }
    if (base !== undefined) throw new EvalError("int: can't convert non-string with explicit base");
    if (typeof x === "boolean") return x ? 1 : 0;
    if (typeof x === "number" || typeof x === "bigint") return x;
    if (x instanceof Float) {
      try {
        return floatToInt(x.v);
      } catch (e) {
        throw new EvalError(`int: ${(e as Error).message}`);
      }
    }
    throw new EvalError(`int: cannot convert ${typeName(x)} to int`);
  }],
  ["ord", (_th, a, k) => {
    if (k !== null && k.length > 0) throw new EvalError("ord does not accept keyword arguments");
    if (a.length !== 1) throw new EvalError(`ord: got ${a.length} arguments, want 1`);
    const x = a[0];
    if (x instanceof Bytes) {
      if (x.s.length !== 1) throw new EvalError(`ord: bytes has length ${x.s.length}, want 1`);
      return x.s.charCodeAt(0);
    }
    // newer starlark-go's text (ord takes bytes there too); the 2021 snapshot says "want string"
    if (typeof x !== "string") {
      throw new EvalError(`ord: got ${typeName(x)}, want string or bytes`);
    }
    const rs = runes(x);
    const [r, n] = x.length ? decodeRune(x, 0) : [0, 0];
    if (rs.length !== 1 || n !== x.length) {
      throw new EvalError(`ord: string encodes ${rs.length} Unicode code points, want 1`);
    }
    return r;
  }],
  ["repr", (th, a, k) => {
    const [x] = positional("repr", a, k, 1, 1);
    const s = repr(x, th.maxBytes, th);
    th.charge(s.length >> 6);
    return newStr(s);
  }],
  ["str", (th, a, k) => {
    if (k !== null && k.length > 0) throw new EvalError("str does not accept keyword arguments");
    if (a.length !== 1) throw new EvalError(`str: got ${a.length} arguments, want exactly 1`);
    const x = a[0];
    if (x instanceof Bytes) {
      // decode bytes, replacing invalid UTF-8
      let out = "";
      chargeScan(x.s.length);
      th.alloc(STR_BYTES + x.s.length * 3);
      for (let i = 0; i < x.s.length;) {
        const [r, n] = decodeRune(x.s, i);
        out += r === 0xfffd && n === 1 ? encodeRune(0xfffd) : x.s.slice(i, i + n);
        i += n;
      }
      return out;
    }
    const s = str(x, th.maxBytes, th);
    th.charge(s.length >> 6);
    return s === x ? s : newStr(s);
  }],
  ["type", (_th, a, k) => {
    if (k !== null && k.length > 0) throw new EvalError("type does not accept keyword arguments");
    if (a.length !== 1) throw new EvalError(`type: got ${a.length} arguments, want exactly 1`);
    return typeName(a[0]);
  }],
];
