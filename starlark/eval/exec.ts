/** Parse → resolve → compile → execute a module (internal entry used by run.ts and tests). */
import { EvalError, type StarlarkError } from "../errors.ts";
import { makeUniverse } from "../lib/universe.ts";
import { utf8Encode } from "../values/bytes_text.ts";
import { parseFile } from "../syntax/parser.ts";
import { resolveFile } from "../syntax/resolver.ts";
import type { Thread } from "../thread.ts";
import { Cell, type Value } from "../values/value.ts";
import type { Frame } from "./call.ts";
import { type CompiledProgram, compileFile } from "./compiler.ts";
import { freeze } from "./freeze.ts";

export interface CompileOptions {
  filename?: string;
  /** Names the embedder will predeclare (resolved as "predeclared"). */
  predeclared?: Iterable<string>;
  /** Accept `load` statements (conformance harness only; they bind predeclared values). */
  allowLoad?: boolean;
}

/** One shared universe: all its values are immutable (also what names.ts resolves against). */
let sharedUniverse: Map<string, Value> | null = null;
export function universe(): Map<string, Value> {
  return sharedUniverse ??= makeUniverse();
}

/** Compile source; throws the first StarlarkError (a syntax error, or the first resolve error). */
export function compileSource(src: string, opts: CompileOptions = {}): CompiledProgram {
  const { program, errors } = compileSourceAll(src, opts);
  if (errors.length > 0) throw errors[0];
  return program!;
}

function compileSourceAll(
  src: string,
  opts: CompileOptions = {},
): { program?: CompiledProgram; errors: StarlarkError[] } {
  const filename = opts.filename ?? "<program>";
  const file = parseFile(src, filename);
  const pre = new Set([...(opts.predeclared ?? [])].map(utf8Encode));
  const u = universe();
  const errors = resolveFile(file, {
    isPredeclared: (n) => pre.has(n),
    isUniversal: (n) => u.has(n),
    allowLoad: opts.allowLoad,
  });
  if (errors.length > 0) return { errors };
  return { program: compileFile(file, u), errors };
}

/** Run top-level code of a compiled program, then freeze its globals. */
export function execProgram(prog: CompiledProgram, th: Thread): Map<string, Value> {
  const globals: (Value | undefined)[] = new Array(prog.globals.length);
  const locals: (Value | undefined | Cell)[] = new Array(prog.nlocals);
  for (const c of prog.cells) locals[c] = new Cell(undefined);
  const fr: Frame = {
    th,
    locals,
    fn: null,
    globals,
    pos: 0,
    ret: null,
    parent: th.fr,
    filename: prog.filename,
  };
  const saved = th.fr;
  th.fr = fr;
  try {
    prog.body(fr);
  } catch (e) {
    if (e instanceof EvalError) {
      if (e.pos < 0) e.pos = fr.pos;
      e.frames.push({
        fn: "<toplevel>",
        filename: prog.filename,
        line: Math.floor(fr.pos / 4096),
        col: fr.pos % 4096,
      });
    }
    throw e;
  } finally {
    th.fr = saved;
  }
  const out = new Map<string, Value>();
  prog.globals.forEach((name, i) => {
    const v = globals[i];
    if (v !== undefined) {
      freeze(v);
      out.set(name, v);
    }
  });
  return out;
}
