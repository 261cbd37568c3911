/** json.indent: Go's encoding/json.Indent over a binary string (number text kept verbatim). */
import { EvalError } from "../errors.ts";

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
