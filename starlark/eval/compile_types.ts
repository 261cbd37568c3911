/**
 * Shared types and constants of the closure compiler (compiler.ts, compile_expr.ts,
 * compile_stmt.ts, compile_function.ts) and the loop helper (iterate.ts).
 *
 * @module
 */
import type { FnInfo } from "../syntax/ast.ts";
import type { Value } from "../values/value.ts";
import type { Frame } from "./call.ts";

/** A compiled expression: evaluates in a frame to a value. */
export type CompiledExpr = (fr: Frame) => Value;
/** A compiled statement: runs in a frame and returns a completion code (NORMAL, ...). */
export type CompiledStmt = (fr: Frame) => number;
/** A compiled assignment target: stores a value into a variable, element or attribute. */
export type CompiledTarget = (fr: Frame, v: Value) => void;

/** Completion code: the statement finished normally. */
export const NORMAL = 0;
/** Completion code: a `break` statement ran. */
export const BREAK = 1;
/** Completion code: a `continue` statement ran. */
export const CONTINUE = 2;
/** Completion code: a `return` statement ran (the value is in `Frame.ret`). */
export const RETURN = 3;

/** Compile-time context. */
export interface CompilerContext {
  /** The file name recorded in function values (for tracebacks). */
  filename: string;
  /** The universal builtins, bound at compile time. */
  universe: Map<string, Value>;
}

/** Slot indices of a function's locals that are held in cells (captured by inner functions). */
export function cellsOf(fn: FnInfo): number[] {
  return fn.locals.filter((b) => b.scope === "cell").map((b) => b.index);
}
