/** str.format (starlark-go subset: {}, {0}, {name}, !s/!r, {{ }}; no format specs). */
import { newStr } from "../thread.ts";
import { EvalError } from "../errors.ts";
import type { Thread } from "../thread.ts";
import { repr, str } from "../values/repr.ts";
import type { Kwargs, Value } from "../values/value.ts";

export function strFormat(th: Thread, format: string, args: Value[], kwargs: Kwargs): string {
  let buf = "";
  let auto = false, manual = false;
  let index = 0;
  for (;;) {
    const i = format.indexOf("{");
    let literal = i >= 0 ? format.slice(0, i) : format;
    for (;;) {
      const j = literal.indexOf("}");
      if (j < 0) {
        buf += literal;
        break;
      }
      if (literal.length === j + 1 || literal[j + 1] !== "}") {
        throw new EvalError("format: single '}' in format");
      }
      buf += literal.slice(0, j + 1);
      literal = literal.slice(j + 2);
    }
    if (i < 0) break;
    if (format[i + 1] === "{") {
      buf += "{";
      format = format.slice(i + 2);
      continue;
    }
    format = format.slice(i + 1);
    const close = format.indexOf("}");
    if (close < 0) throw new EvalError("format: unmatched '{' in format");
    let field = format.slice(0, close);
    format = format.slice(close + 1);
    let conv = "s", spec = "", name: string;
    const bang = field.indexOf("!");
    if (bang < 0) {
      const c = field.indexOf(":");
      if (c < 0) name = field;
      else {
        name = field.slice(0, c);
        spec = field.slice(c + 1);
      }
    } else {
      name = field.slice(0, bang);
      field = field.slice(bang + 1);
      const c = field.indexOf(":");
      if (c < 0) conv = field;
      else {
        conv = field.slice(0, c);
        spec = field.slice(c + 1);
      }
    }
    let arg: Value | undefined;
    if (name === "") {
      if (manual) {
        throw new EvalError(
          "format: cannot switch from manual field specification to automatic field numbering",
        );
      }
      auto = true;
      if (index >= args.length) throw new EvalError("format: tuple index out of range");
      arg = args[index++];
    } else if (/^[0-9]+$/.test(name)) {
      if (auto) {
        throw new EvalError(
          "format: cannot switch from automatic field numbering to manual field specification",
        );
      }
      manual = true;
      const num = Number(name);
      if (num >= args.length) throw new EvalError("format: tuple index out of range");
      arg = args[num];
    } else {
      for (const [k, v] of kwargs ?? []) {
        if (k === name) {
          arg = v;
          break;
        }
      }
      if (arg === undefined) {
        if (name.includes(".")) {
          throw new EvalError(
            `format: attribute syntax x.y is not supported in replacement fields: ${name}`,
          );
        }
        if (name.includes("[")) {
          throw new EvalError(
            `format: element syntax a[i] is not supported in replacement fields: ${name}`,
          );
        }
        if (name.includes("{")) {
          throw new EvalError("format: nested replacement fields not supported");
        }
        throw new EvalError(`format: keyword ${name} not found`);
      }
    }
    if (spec !== "") {
      throw new EvalError(`format spec features not supported in replacement fields: ${spec}`);
    }
    if (conv === "s") buf += str(arg, th.maxBytes, th);
    else if (conv === "r") buf += repr(arg, th.maxBytes, th);
    else throw new EvalError(`format: unknown conversion ${JSON.stringify(conv)}`);
    th.checkAlloc(buf.length);
  }
  th.charge(buf.length >> 6);
  return newStr(buf);
}
