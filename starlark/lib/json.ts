/** The `json` module: encode, decode, indent (starlark-go's starlarkjson semantics). */
import { newStr, STR_BYTES } from "../thread.ts";
import { EvalError } from "../errors.ts";
import { typeName } from "../values/ops.ts";
import { Builtin, Module, type NativeFn } from "../values/value.ts";
import { positional, unpackArgs } from "./args.ts";
import { decode } from "./json_decode.ts";
import { encode } from "./json_encode.ts";
import { indent } from "./json_indent.ts";

const fns: [string, NativeFn][] = [
  ["encode", (th, a, k) => {
    const [x] = positional("json.encode", a, k, 1, 1);
    try {
      return newStr(encode(th, x));
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
    th.alloc(STR_BYTES + x.length); // strings and scalars; lists and dicts charge when built
    return decode(th, x);
  }],
  ["indent", (th, a, k) => {
    const [prefix, ind] = unpackArgs("json.indent", [], k, ["prefix?", "indent?"], {
      check: (_name, v) => typeof v === "string" ? undefined : `got ${typeName(v)}, want string`,
    });
    const [x] = positional("json.indent", a, null, 1, 1);
    if (typeof x !== "string") {
      throw new EvalError(`json.indent: for parameter 1: got ${typeName(x)}, want string`);
    }
    const p = prefix === undefined ? "" : prefix as string;
    const d = ind === undefined ? "\t" : ind as string;
    th.charge(x.length >> 4);
    const s = indent(x, p, d);
    th.checkAlloc(s.length);
    return newStr(s);
  }],
];

export function makeJsonModule(): Module {
  return new Module("json", new Map(fns.map(([n, f]) => [n, new Builtin("json." + n, f)])));
}
