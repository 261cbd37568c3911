/**
 * Compiler: resolved syntax tree → tree of JS closures. Each expression becomes
 * `(fr) => Value`, each statement `(fr) => completion` (0 normal, 1 break, 2 continue,
 * 3 return). Int and string fast paths are inlined; everything else goes to values/*.
 * Expressions and assignment targets: compile_expr.ts; statements: compile_stmt.ts; function
 * values: compile_function.ts; loops: iterate.ts. Statements depend on expressions, never
 * the other way round.
 *
 * @module
 */
import type { File } from "../syntax/ast.ts";
import type { Value } from "../values/value.ts";
import { cellsOf, type CompiledStmt, type CompilerContext } from "./compile_types.ts";
import { stmts } from "./compile_stmt.ts";

/** A compiled module, ready to run in a new frame. */
export interface CompiledProgram {
  /** The file name (in errors and tracebacks). */
  filename: string;
  /** Names of the global slots, by index. */
  globals: string[];
  /** Top-level code; frame locals sized by `nlocals`. */
  body: CompiledStmt;
  /** Number of top-level local slots. */
  nlocals: number;
  /** Top-level local slots held in cells. */
  cells: number[];
}

/** Compile a resolved file; `universe` supplies the universal builtins' values. */
export function compileFile(file: File, universe: Map<string, Value>): CompiledProgram {
  const c: CompilerContext = { filename: file.filename, universe };
  const body = stmts(c, file.stmts);
  return {
    filename: file.filename,
    globals: file.globals!,
    body,
    nlocals: file.module!.nlocals,
    cells: cellsOf(file.module!),
  };
}
