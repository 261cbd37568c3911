/**
 * Compiler: resolved syntax tree → tree of JS closures. Each expression becomes
 * `(fr) => Value`, each statement `(fr) => completion` (0 normal, 1 break, 2 continue,
 * 3 return). Int and string fast paths are inlined; everything else goes to values/*.
 * Expressions: compile_expr.ts; statements and functions: compile_stmt.ts.
 */
import type { File } from "../syntax/ast.ts";
import type { Value } from "../values/value.ts";
import { cellsOf, type Ctx, type S } from "./compile_types.ts";
import { stmts } from "./compile_stmt.ts";

export interface CompiledProgram {
  filename: string;
  globals: string[];
  /** Top-level code; frame locals sized by `nlocals`. */
  body: S;
  nlocals: number;
  cells: number[];
}

export function compileFile(file: File, universe: Map<string, Value>): CompiledProgram {
  const c: Ctx = { filename: file.filename, universe };
  const body = stmts(c, file.stmts);
  return {
    filename: file.filename,
    globals: file.globals!,
    body,
    nlocals: file.fn!.nlocals,
    cells: cellsOf(file.fn!),
  };
}
