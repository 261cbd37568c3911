/** json.encode: Starlark values → JSON text (starlarkjson semantics: sorted keys, Go quoting). */
import { current } from "../thread.ts";
import { EvalError } from "../errors.ts";
import type { Thread } from "../thread.ts";
import { decodeRune, encodeRune } from "../values/bytes_text.ts";
import { formatFloat, formatG } from "../values/float_format.ts";
import { intToDecimal, typeName } from "../values/ops.ts";
import { quote as goQuote, repr } from "../values/repr.ts";
import { elements } from "../values/seq.ts";
import { Builtin, Dict, Float, Module, type Value } from "../values/value.ts";
import type { HasAttrs } from "./attr.ts";

/** JSON string literal of a binary (UTF-8) string, as starlarkjson writes it. */
function jsonQuote(s: string): string {
  // printable ASCII goes through strconv.Quote; anything else through encoding/json
  if (/^[\x20\x21\x23-\x5b\x5d-\x7e]*$/.test(s)) return '"' + s + '"'; // nothing to escape
  if (/^[\x20-\x7e]*$/.test(s)) return goQuote(s);
  // encoding/json.Marshal rules
  let out = '"';
  for (let i = 0, k = 0; i < s.length;) {
    if ((++k & 0xfff) === 0) current.charge(1024);
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
    else if (typeof v === "number" || typeof v === "bigint") out += intToDecimal(v);
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
