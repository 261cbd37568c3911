/** Shared types and constants of the closure compiler. */
import type { FnInfo } from "../syntax/ast.ts";
import type { Value } from "../values/value.ts";
import type { Frame } from "./call.ts";

/** A compiled expression. */
export type E = (fr: Frame) => Value;
/** A compiled statement; returns a completion code. */
export type S = (fr: Frame) => number;
/** A compiled assignment target. */
export type A = (fr: Frame, v: Value) => void;

export const NORMAL = 0, BREAK = 1, CONTINUE = 2, RETURN = 3;

/** Compile-time context. */
export interface Ctx {
  filename: string;
  universe: Map<string, Value>;
}

export function cellsOf(fn: FnInfo): number[] {
  return fn.locals.filter((b) => b.scope === "cell").map((b) => b.index);
}
