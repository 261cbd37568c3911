/** The `json` module: encode, decode, indent (starlark-go's starlarkjson semantics). */
import { EvalError } from "../errors.ts";
import type { Thread } from "../thread.ts";
import { decodeRune, encodeRune, utf8Decode, utf8Encode } from "../values/bytes_text.ts";
import { formatFloat, formatG } from "../values/float_format.ts";
import { typeName } from "../values/ops.ts";
import { quote as goQuote, repr } from "../values/repr.ts";
import { elements } from "../values/seq.ts";
import {
  Builtin,
  Dict,
  Float,
  List,
  Module,
  type NativeFn,
  normInt,
  type Value,
} from "../values/value.ts";
import { positional, unpackArgs } from "./args.ts";
import type { HasAttrs } from "./attr.ts";

const HEX = "0123456789abcdef";

/** JSON string literal of a binary (UTF-8) string, as starlarkjson writes it. */
export function jsonQuote(s: string): string {
  // printable ASCII goes through strconv.Quote; anything else through encoding/json
  if (/^[\x20\x21\x23-\x5b\x5d-\x7e]*$/.test(s)) return '"' + s + '"'; // nothing to escape
  if (/^[\x20-\x7e]*$/.test(s)) return goQuote(s);
  // encoding/json.Marshal rules
  let out = '"';
  for (let i = 0; i < s.length;) {
    const [r, n] = decodeRune(s, i);
    i += n;
    if (r === 0x22) out += '\\"';
    else if (r === 0x5c) out += "\\\\";
    else if (r === 0x0a) out += "\\n";
    else if (r === 0x0d) out += "\\r";
    else if (r === 0x09) out += "\\t";
    else if (r < 0x20 || r === 0x3c || r === 0x3e || r === 0x26 || r === 0x2028 || r === 0x2029) {
      out += "\\u" + r.toString(16).padStart(4, "0");
    } else if (r === 0xfffd && n === 1) out += "\\ufffd";
    else out += encodeRune(r);
  }
  void HEX;
  return out + '"';
}

export function encode(th: Thread, x: Value): string {
  const seen: unknown[] = [];
  let out = "";
  const wrap = (e: unknown, prefix: string): never => {
    if (e instanceof EvalError && e.kind === "runtime") throw new EvalError(prefix + e.message);
    throw e;
  };
  const emit = (v: Value): void => {
    th.step();
    if (v === null) out += "null";
    else if (v === true) out += "true";
    else if (v === false) out += "false";
    else if (typeof v === "number" || typeof v === "bigint") out += String(v);
    else if (typeof v === "string") out += jsonQuote(v);
    else if (v instanceof Float) {
      if (!Number.isFinite(v.v)) {
        throw new EvalError(`cannot encode non-finite float ${formatFloat(v.v)}`);
      }
      out += formatG(v.v, false); // Go's %g: 1.0 encodes as 1
    } else if (v instanceof Dict) {
      if (seen.includes(v)) throw new EvalError("cycle in JSON structure");
      seen.push(v);
      const keys: string[] = [];
      for (const e of v.map.values()) {
        if (typeof e[0] !== "string") {
          throw new EvalError(`dict has ${typeName(e[0])} key, want string`);
        }
        keys.push(e[0]);
      }
      keys.sort(); // binary strings: code-unit order is byte order
      out += "{";
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        if (i > 0) out += ",";
        out += jsonQuote(k) + ":";
        try {
          emit(v.map.get(k)![1]);
        } catch (e) {
          wrap(e, `in dict key ${repr(k)}: `);
        }
      }
      out += "}";
      seen.pop();
    } else if (v !== null && typeof v === "object" && "attrNames" in v) {
      const h = v as unknown as HasAttrs;
      const names = h.attrNames().slice().sort();
      out += "{";
      for (let i = 0; i < names.length; i++) {
        if (i > 0) out += ",";
        out += jsonQuote(names[i]) + ":";
        try {
          emit(h.attr(names[i])!);
        } catch (e) {
          wrap(e, `in field .${names[i]}: `);
        }
      }
      out += "}";
    } else {
      const el = v instanceof Module || v instanceof Builtin ? null : elements(v, th);
      if (el === null) throw new EvalError(`cannot encode ${typeName(v)} as JSON`);
      if (seen.includes(v)) throw new EvalError("cycle in JSON structure");
      seen.push(v);
      out += "[";
      for (let i = 0; i < el.length; i++) {
        if (i > 0) out += ",";
        try {
          emit(el[i]);
        } catch (e) {
          wrap(e, `at ${typeName(v)} index ${i}: `);
        }
      }
      out += "]";
      seen.pop();
    }
    if (out.length > th.maxBytes) th.checkAlloc(out.length);
  };
  emit(x);
  return out;
}

class Failure {
  constructor(readonly msg: string) {}
}

function goQ(b: string): string {
  // Go %q of a byte
  if (b === "'") return "'\\''";
  return "'" + (b === "\\" ? "\\\\" : b) + "'";
}

export function decode(th: Thread, s: string): Value {
  let i = 0;
  const fail = (msg: string): never => {
    throw new Failure(msg);
  };
  const skipSpace = (): boolean => {
    for (; i < s.length; i++) {
      const b = s[i];
      if (b !== " " && b !== "\t" && b !== "\n" && b !== "\r") return true;
    }
    return false;
  };
  const next = (): string => (skipSpace() ? s[i] : fail("unexpected end of file"));
  const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";
  const parse = (): Value => {
    th.step();
    let b = next();
    switch (b) {
      case '"': {
        // fast path: no escapes, control characters or non-ASCII before the closing quote
        const close = s.indexOf('"', i + 1);
        if (close > 0) {
          const seg = s.slice(i + 1, close);
          // deno-lint-ignore no-control-regex
          if (!/[\\\x00-\x1f\x80-\xff]/.test(seg)) {
            i = close + 1;
            return seg;
          }
        }
        let j = i + 1;
        let out = "";
        let closed = false;
        while (j < s.length) {
          const c = s[j];
          if (c === '"') {
            closed = true;
            j++;
            break;
          }
          if (c === "\\") {
            const e = s[j + 1];
            if (e === undefined) break;
            const simple: Record<string, string> = {
              '"': '"',
              "\\": "\\",
              "/": "/",
              b: "\b",
              f: "\f",
              n: "\n",
              r: "\r",
              t: "\t",
            };
            if (e in simple) {
              out += simple[e];
              j += 2;
              continue;
            }
            if (e === "u") {
              const h = s.slice(j + 2, j + 6);
              if (!/^[0-9a-fA-F]{4}$/.test(h)) {
                fail("invalid character in \\u hexadecimal character escape");
              }
              let cp = parseInt(h, 16);
              j += 6;
              if (cp >= 0xd800 && cp < 0xdc00 && s[j] === "\\" && s[j + 1] === "u") {
                const h2 = s.slice(j + 2, j + 6);
                const lo = parseInt(h2, 16);
                if (/^[0-9a-fA-F]{4}$/.test(h2) && lo >= 0xdc00 && lo < 0xe000) {
                  cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                  j += 6;
                }
              }
              out += encodeRune(cp);
              continue;
            }
            fail(`invalid character ${goQ(e)} in string escape code`);
          }
          if (c < " ") fail(`invalid character ${goQ(c)} in string literal`);
          out += c;
          j++;
        }
        if (!closed) fail("unclosed string literal");
        i = j;
        // invalid UTF-8 becomes U+FFFD, as with encoding/json
        return utf8Encode(utf8Decode(out));
      }
      case "n":
        if (s.startsWith("null", i)) {
          i += 4;
          return null;
        }
        break;
      case "t":
        if (s.startsWith("true", i)) {
          i += 4;
          return true;
        }
        break;
      case "f":
        if (s.startsWith("false", i)) {
          i += 5;
          return false;
        }
        break;
      case "[": {
        const elems: Value[] = [];
        i++;
        b = next();
        if (b !== "]") {
          for (;;) {
            elems.push(parse());
            b = next();
            if (b !== ",") {
              if (b !== "]") fail(`got ${goQ(b)}, want ',' or ']'`);
              break;
            }
            i++;
          }
        }
        i++;
        return new List(elems);
      }
      case "{": {
        const d = new Dict();
        i++;
        b = next();
        if (b !== "}") {
          for (;;) {
            const key = parse();
            if (typeof key !== "string") fail(`got ${typeName(key)} for object key, want string`);
            b = next();
            if (b !== ":") fail(`after object key, got ${goQ(b)}, want ':' `);
            i++;
            const v = parse();
            const old = d.map.get(key);
            if (old) old[1] = v;
            else d.map.set(key, [key, v]);
            b = next();
            if (b !== ",") {
              if (b !== "}") fail(`in object, got ${goQ(b)}, want ',' or '}'`);
              break;
            }
            i++;
          }
        }
        i++;
        return d;
      }
      default:
        if (isDigit(b) || b === "-") {
          let isFloat = false;
          let j = i + 1;
          for (; j < s.length; j++) {
            const c = s[j];
            if (isDigit(c)) continue;
            if (c === "." || c === "e" || c === "E" || c === "+" || c === "-") isFloat = true;
            else break;
          }
          const num = s.slice(i, j);
          i = j;
          const digits = num[0] === "-" ? num.slice(1) : num;
          if (digits === "" || (digits[0] === "0" && digits.length > 1 && isDigit(digits[1]))) {
            fail(`invalid number: ${num}`);
          }
          if (isFloat) {
            if (!/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(num)) {
              fail(`invalid number: ${num}`);
            }
            return new Float(Number(num));
          }
          if (!/^-?\d+$/.test(num)) fail(`invalid number: ${num}`);
          return normInt(BigInt(num));
        }
    }
    return fail(`unexpected character ${goQ(b)}`);
  };
  try {
    const x = parse();
    if (skipSpace()) fail(`unexpected character ${goQ(s[i])} after value`);
    return x;
  } catch (e) {
    if (e instanceof Failure) throw new EvalError(`json.decode: at offset ${i}, ${e.msg}`);
    throw e;
  }
}

/** Go encoding/json.Indent over a binary string. */
export function indent(src: string, prefix: string, ind: string): string {
  let out = "";
  let depth = 0;
  let i = 0;
  const n = src.length;
  const ws = (c: string) => c === " " || c === "\t" || c === "\n" || c === "\r";
  const err = (msg: string): never => {
    throw new EvalError(`json.indent: ${msg}`);
  };
  const newline = () => {
    out += "\n" + prefix + ind.repeat(depth);
  };
  const skip = () => {
    while (i < n && ws(src[i])) i++;
  };
  const ch = (c: string | undefined) => (c === undefined ? "" : c === "'" ? "'\\''" : `'${c}'`);
  const value = (): void => {
    skip();
    if (i >= n) err("unexpected end of JSON input");
    const c = src[i];
    if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      out += c;
      i++;
      skip();
      if (src[i] === close) {
        out += close;
        i++;
        return;
      }
      depth++;
      for (;;) {
        newline();
        if (c === "{") {
          skip();
          if (src[i] !== '"') {
            err(`invalid character ${ch(src[i])} looking for beginning of object key string`);
          }
          str();
          skip();
          if (src[i] !== ":") err(`invalid character ${ch(src[i])} after object key`);
          i++;
          out += ": ";
        }
        value();
        skip();
        if (src[i] === ",") {
          out += ",";
          i++;
          continue;
        }
        if (src[i] === close) {
          depth--;
          newline();
          out += close;
          i++;
          return;
        }
        if (i >= n) err("unexpected end of JSON input");
        err(
          `invalid character ${ch(src[i])} after ${
            c === "{" ? "object key:value pair" : "array element"
          }`,
        );
      }
    }
    if (c === '"') return str();
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(src.slice(i));
    if (m && m[0].length > 0 && (c === "-" || (c >= "0" && c <= "9"))) {
      out += m[0];
      i += m[0].length;
      return;
    }
    for (const lit of ["true", "false", "null"]) {
      if (src.startsWith(lit, i)) {
        out += lit;
        i += lit.length;
        return;
      }
    }
    err(`invalid character ${ch(c)} looking for beginning of value`);
  };
  const str = () => {
    let j = i + 1;
    while (j < n && src[j] !== '"') {
      if (src[j] === "\\") j++;
      j++;
    }
    if (j >= n) err("unexpected end of JSON input");
    out += src.slice(i, j + 1);
    i = j + 1;
  };
  skip();
  value();
  const rest = src.slice(i);
  if (rest.trim() !== "" && !/^[ \t\r\n]*$/.test(rest)) {
    err(`invalid character ${ch(rest.trim()[0])} after top-level value`);
  }
  return out + rest;
}

const fns: [string, NativeFn][] = [
  ["encode", (th, a, k) => {
    const [x] = positional("json.encode", a, k, 1, 1);
    try {
      return encode(th, x);
    } catch (e) {
      if (e instanceof EvalError && e.kind === "runtime") {
        throw new EvalError(`json.encode: ${e.message}`);
      }
      throw e;
    }
  }],
  ["decode", (th, a, k) => {
    const [x] = positional("json.decode", a, k, 1, 1);
    if (typeof x !== "string") {
      throw new EvalError(`json.decode: for parameter 1: got ${typeName(x)}, want string`);
    }
    th.charge(x.length >> 4);
    return decode(th, x);
  }],
  ["indent", (th, a, k) => {
    const [prefix, ind] = unpackArgs("json.indent", [], k, ["prefix?", "indent?"]);
    const [x] = positional("json.indent", a, null, 1, 1);
    if (typeof x !== "string") {
      throw new EvalError(`json.indent: for parameter 1: got ${typeName(x)}, want string`);
    }
    const p = prefix === undefined ? "" : prefix, d = ind === undefined ? "\t" : ind;
    if (typeof p !== "string" || typeof d !== "string") {
      throw new EvalError("indent: prefix and indent must be strings");
    }
    th.charge(x.length >> 4);
    const s = indent(x, p, d);
    th.checkAlloc(s.length);
    return s;
  }],
];

export function makeJsonModule(): Module {
  return new Module("json", new Map(fns.map(([n, f]) => [n, new Builtin("json." + n, f)])));
}
