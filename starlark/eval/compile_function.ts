/**
 * Function values: a def or lambda compiles to an expression that, each time it runs, makes
 * a new `Fn` (evaluating default values and capturing the free variables' cells then).
 *
 * @module
 */
import type { FnInfo, Position } from "../syntax/ast.ts";
import { type Cell, Fn, type FnCode, type Value } from "../values/value.ts";
import type { Frame } from "./call.ts";
import { cellsOf, type CompiledExpr, type CompilerContext } from "./compile_types.ts";

/**
 * Compile the making of a function value.
 * @param name the function's name ("lambda" for a lambda)
 * @param at where the def or lambda starts (recorded for tracebacks)
 * @param info the resolver's facts about the function
 * @param defaultExprs compiled default values, by parameter slot (undefined: required)
 * @param compileBody compiles the body into a closure returning the call's result
 */
export function makeFunction(
  c: CompilerContext,
  name: string,
  at: Position,
  info: FnInfo,
  defaultExprs: (CompiledExpr | undefined)[],
  compileBody: () => (fr: Frame) => Value,
): CompiledExpr {
  const paramNames = info.locals.slice(0, info.nlocals).map((b) => b.name);
  const freeGet = info.freevars.map((b): (fr: Frame) => Cell => {
    if (b.scope === "cell") return (fr) => fr.locals[b.index] as Cell;
    return (fr) => fr.fn!.freevars[b.index];
  });
  const code: FnCode = {
    name,
    filename: c.filename,
    line: at.line,
    col: at.col,
    paramNames,
    numParams: info.numParams,
    numKwonly: info.numKwonly,
    hasVarargs: info.hasVarargs,
    hasKwargs: info.hasKwargs,
    nlocals: info.nlocals,
    cells: [],
    body: () => null,
    active: 0,
  };
  code.body = compileBody();
  code.cells = cellsOf(info);
  const hasDefaults = defaultExprs.some((d) => d !== undefined);
  return (fr) => {
    const defaults: (Value | undefined)[] = hasDefaults
      ? defaultExprs.map((d) => (d ? d(fr) : undefined))
      : defaultExprs as undefined[];
    const free = freeGet.map((g) => g(fr));
    return new Fn(code, defaults, free, fr.globals);
  };
}
