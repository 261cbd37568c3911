/** A parsed and resolved program, ready to run many times. */
import type { ParseOptions } from "./api_types.ts";
import type { CompiledProgram } from "./eval/compiler.ts";
import { compileSource } from "./eval/exec.ts";

/** Opaque handle returned by `parse`. */
export interface Program {
  /** The file name used in positions (`ParseOptions.filename`). */
  readonly filename: string;
  /** The program's text as given. */
  readonly source: string;
  /** Names resolved as predeclared (host-provided) globals. */
  readonly predeclared: readonly string[];
}

/** Internal view: the compiled closures. */
export interface CompiledHandle extends Program {
  readonly compiled: CompiledProgram;
}

/**
 * Parse and resolve `source`; throws StarlarkError (kind "syntax" or "resolve") with the first
 * error, formatted "<file>:line:col: message". Names in `options.predeclared` are accepted as
 * host-provided globals (run() re-resolves when given a different set).
 */
export function parse(source: string, options: ParseOptions = {}): Program {
  const filename = options.filename ?? "<program>";
  const predeclared = [...new Set(options.predeclared ?? [])].sort();
  const compiled = compileSource(source, { filename, predeclared });
  const handle: CompiledHandle = { filename, source, predeclared, compiled };
  return handle;
}
