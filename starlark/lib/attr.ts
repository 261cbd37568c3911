/** Attribute access: methods of built-in types, module members, custom objects. */
import { spell } from "../syntax/spell.ts";
import { EvalError } from "../errors.ts";
import type { Thread } from "../thread.ts";
import { typeName } from "../values/ops.ts";
import { Builtin, Bytes, Dict, List, Module, type NativeFn, type Value } from "../values/value.ts";
import { DICT_METHODS, LIST_METHODS } from "./list_dict_methods.ts";
import { BYTES_METHODS, STRING_METHODS } from "./str_methods.ts";

/** Objects defined by embedders/tests may implement this to expose fields. */
export interface HasAttrs {
  attr(name: string): Value | undefined;
  attrNames(): string[];
  setField?(name: string, v: Value): void;
}

function methodTable(x: Value): Map<string, NativeFn> | null {
  if (typeof x === "string") return STRING_METHODS;
  if (x instanceof List) return LIST_METHODS;
  if (x instanceof Dict) return DICT_METHODS;
  if (x instanceof Bytes) return BYTES_METHODS;
  return null;
}

export function getMethod(x: Value, name: string): NativeFn | null {
  const t = methodTable(x);
  return t === null ? null : t.get(name) ?? null;
}

function lookup(x: Value, name: string): Value | undefined {
  const t = methodTable(x);
  if (t !== null) {
    const f = t.get(name);
    return f === undefined ? undefined : new Builtin(name, f, x);
  }
  if (x instanceof Module) return x.members.get(name);
  if (x !== null && typeof x === "object" && "attr" in x) {
    return (x as unknown as HasAttrs).attr(name);
  }
  return undefined;
}

export function attrNames(x: Value): string[] {
  const t = methodTable(x);
  if (t !== null) return [...t.keys()].sort();
  if (x instanceof Module) return [...x.members.keys()].sort();
  if (x !== null && typeof x === "object" && "attrNames" in x) {
    return (x as unknown as HasAttrs).attrNames().slice().sort();
  }
  return [];
}

export function hasAttr(x: Value, name: string): boolean {
  return lookup(x, name) !== undefined;
}

export function getAttr(_th: Thread, x: Value, name: string): Value {
  const v = lookup(x, name);
  if (v !== undefined) return v;
  const what = x instanceof Module || (x !== null && typeof x === "object" && "attr" in x)
    ? "field or method"
    : "field or method";
  let msg = `${typeName(x)} has no .${name} ${what}`;
  const hint = spell(name, attrNames(x));
  if (hint) msg += ` (did you mean .${hint}?)`;
  throw new EvalError(msg);
}

export function setAttr(x: Value, name: string, v: Value): void {
  if (x !== null && typeof x === "object" && "setField" in x) {
    (x as unknown as HasAttrs).setField!(name, v);
    return;
  }
  throw new EvalError(`can't assign to .${name} field of ${typeName(x)}`);
}
