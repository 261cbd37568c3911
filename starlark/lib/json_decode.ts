/** json.decode: JSON text → Starlark values (exact big ints; offsets in error messages). */
import { current, ENTRY_BYTES } from "../thread.ts";
import { EvalError } from "../errors.ts";
import type { Thread } from "../thread.ts";
import { encodeRune, utf8Decode, utf8Encode } from "../values/bytes_text.ts";
import { typeName } from "../values/ops.ts";
import { quote } from "../values/repr.ts";
import { Dict, Float, List, normInt, type Value } from "../values/value.ts";

class Failure {
  constructor(readonly msg: string) {}
}

/** How starlark-go/encoding/json name a byte: Go %q of the byte as a rune (U+0000–U+00FF). */
export function goQ(b: string): string {
  if (b === "'") return "'\\''";
  if (b === '"') return "'\"'";
  const code = b.charCodeAt(0);
  const q = quote(code < 0x80 ? b : encodeRune(code));
  return "'" + q.slice(1, -1) + "'"; // a byte string, like every message
}

const SIMPLE: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

/** encoding/json string unquoting (errors as its scanner reports them). */
function unquote(body: string, fail: (msg: string) => never): string {
  let out = "";
  for (let j = 0; j < body.length;) {
    const c = body[j];
    if (c === "\\") {
      const e = body[j + 1];
      if (e in SIMPLE) {
        out += SIMPLE[e];
        j += 2;
        continue;
      }
      if (e === "u") {
        const hex = (k: number) => {
          for (let m = 0; m < 4; m++) {
            const h = body[k + m];
            if (h === undefined || !/^[0-9a-fA-F]$/.test(h)) {
              fail(`invalid character ${goQ(h ?? '"')} in \\u hexadecimal character escape`);
            }
          }
          return parseInt(body.slice(k, k + 4), 16);
        };
        let cp = hex(j + 2);
        j += 6;
        if (cp >= 0xd800 && cp < 0xdc00 && body[j] === "\\" && body[j + 1] === "u") {
          const lo = hex(j + 2);
          if (lo >= 0xdc00 && lo < 0xe000) {
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            j += 6;
          }
        }
        out += encodeRune(cp);
        continue;
      }
      fail(`invalid character ${goQ(e ?? '"')} in string escape code`);
    }
    if (c < " ") fail(`invalid character ${goQ(c)} in string literal`);
    out += c;
    j++;
  }
  // invalid UTF-8 becomes U+FFFD, as with encoding/json
  return utf8Encode(utf8Decode(out));
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
        // "safe" literals (no escapes, no non-ASCII) are taken verbatim, control characters
        // included, exactly as starlark-go does; others are unquoted like encoding/json
        const close = s.indexOf('"', i + 1);
        if (close > 0) {
          const seg = s.slice(i + 1, close);
          if (!/[\\\x80-\xff]/.test(seg)) {
            i = close + 1;
            return seg;
          }
        }
        // as starlark-go: find the end first (errors while unquoting report the offset after it)
        let j = i + 1;
        let closed = false;
        while (j < s.length) {
          if ((j & 0xfff) === 0) th.charge(512);
          const c = s[j];
          if (c === "\\") j += 2;
          else if (c === '"') {
            closed = true;
            j++;
            break;
          } else j++;
        }
        if (!closed) fail("unclosed string literal");
        const body = s.slice(i + 1, j - 1);
        i = j;
        return unquote(body, fail);
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
            else {
              current.alloc(ENTRY_BYTES);
              d.map.set(key, [key, v]);
            }
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
            // whatever strconv.ParseFloat accepts (e.g. "1." and "-.5"), as starlark-go
            if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(num)) {
              fail(`invalid number: ${num}`);
            }
            const f = Number(num);
            if (!Number.isFinite(f)) fail(`invalid number: ${num}`); // ParseFloat: out of range
            return new Float(f);
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
