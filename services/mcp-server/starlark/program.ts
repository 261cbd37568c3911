/** A parsed and resolved program, ready to run many times. */
import type { ParseOptions } from "./api_types.ts";

/** Opaque handle returned by `parse`. */
export interface Program {
  readonly filename: string;
  readonly source: string;
}

/**
 * Parse and resolve `source`; throws StarlarkError (kind "syntax" or "resolve") with the first
 * error, formatted "<file>:line:col: message".
 */
export function parse(source: string, options: ParseOptions = {}): Program {
  return { filename: options.filename ?? "<program>", source };
}
