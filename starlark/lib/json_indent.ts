/**
 * json.indent: Go's encoding/json.Indent over a binary string. The input is validated with the
 * states and error texts of Go's JSON scanner; tokens are copied verbatim (number text kept).
 */
import { current } from "../thread.ts";
import { EvalError } from "../errors.ts";
import { goQ } from "./json_decode.ts";

const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";
const isHex = (c: string | undefined) => c !== undefined && /^[0-9a-fA-F]$/.test(c);
const isSpace = (c: string) => c === " " || c === "\t" || c === "\n" || c === "\r";

export function indent(src: string, prefix: string, ind: string): string {
  let out = "";
  let depth = 0;
  let i = 0;
  const n = src.length;
  const fail = (msg: string): never => {
    throw new EvalError(`json.indent: ${msg}`);
  };
  // At the end of input Go's scanner feeds one ' ': inside a literal or number that is the
  // offending character; elsewhere the input is just incomplete.
  const bad = (context: string, spaceAtEnd = false): never => {
    if (i >= n && !spaceAtEnd) fail("unexpected end of JSON input");
    return fail(`invalid character ${goQ(i >= n ? " " : src[i])} ${context}`);
  };
  const newline = () => {
    out += "\n" + prefix + ind.repeat(depth);
  };
  const skip = () => {
    while (i < n && isSpace(src[i])) i++;
  };

  const literal = (word: string) => {
    for (let k = 1; k < word.length; k++) {
      i++;
      if (src[i] !== word[k]) bad(`in literal ${word} (expecting ${goQ(word[k])})`, true);
    }
    i++;
    out += word;
  };

  const number = () => {
    const start = i;
    if (src[i] === "-") {
      i++;
      if (!isDigit(src[i])) bad("in numeric literal", true);
    }
    if (src[i] === "0") i++;
    else while (isDigit(src[i])) i++;
    if (src[i] === ".") {
      i++;
      if (!isDigit(src[i])) bad("after decimal point in numeric literal", true);
      while (isDigit(src[i])) i++;
    }
    if (src[i] === "e" || src[i] === "E") {
      i++;
      if (src[i] === "+" || src[i] === "-") i++;
      if (!isDigit(src[i])) bad("in exponent of numeric literal", true);
      while (isDigit(src[i])) i++;
    }
    out += src.slice(start, i);
  };

  const string = () => {
    const start = i;
    i++;
    for (;;) {
      if ((i & 0xfff) === 0) current.charge(512); // per-byte JS work, with time checks
      if (i >= n) fail("unexpected end of JSON input");
      const c = src[i];
      if (c === '"') break;
      if (c === "\\") {
        i++;
        const e = src[i];
        if (e === "u") {
          for (let k = 0; k < 4; k++) {
            i++;
            if (!isHex(src[i])) bad("in \\u hexadecimal character escape", true);
          }
        } else if (e === undefined || !'bfnrt\\/"'.includes(e)) {
          bad("in string escape code", true);
        }
      } else if (c < " ") {
        bad("in string literal");
      }
      i++;
    }
    i++;
    out += src.slice(start, i);
  };

  const value = (): void => {
    skip();
    const c = src[i];
    if (c === "{" || c === "[") {
      const obj = c === "{";
      const close = obj ? "}" : "]";
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
        if (obj) {
          skip();
          if (src[i] !== '"') bad("looking for beginning of object key string");
          string();
          skip();
          if (src[i] !== ":") bad("after object key");
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
        bad(obj ? "after object key:value pair" : "after array element");
      }
    }
    if (c === '"') return string();
    if (c === "-" || isDigit(c)) return number();
    if (c === "t") return literal("true");
    if (c === "f") return literal("false");
    if (c === "n") return literal("null");
    bad("looking for beginning of value");
  };

  skip();
  value();
  // trailing space is kept, as Go does
  const rest = src.slice(i);
  for (let k = 0; k < rest.length; k++) {
    if (!isSpace(rest[k])) {
      i += k;
      bad("after top-level value");
    }
  }
  return out + rest;
}
