/** Calling values: Starlark functions (argument binding per starlark-go) and built-ins. */
import { EvalError } from "../errors.ts";
import type { Thread } from "../thread.ts";
import { typeName } from "../values/ops.ts";
import {
  Builtin,
  Cell,
  Dict,
  EMPTY_TUPLE,
  Fn,
  type Kwargs,
  Tuple,
  type Value,
} from "../values/value.ts";

/** A call frame. Locals hold values or Cells (for captured variables). */
export interface Frame {
  th: Thread;
  locals: (Value | undefined | Cell)[];
  fn: Fn | null;
  globals: (Value | undefined)[];
  /** Packed position of the operation being executed (for error attribution). */
  pos: number;
  ret: Value;
  /** Calling Starlark frame (null at top level). */
  parent: Frame | null;
  filename: string;
}

export function callValue(th: Thread, f: Value, args: Value[], kwargs: Kwargs): Value {
  if (f instanceof Fn) return callFunction(th, f, args, kwargs);
  if (f instanceof Builtin) {
    th.step();
    return f.fn(th, args, kwargs, f.recv);
  }
  throw new EvalError(`invalid call of non-function (${typeName(f)})`);
}

function callFunction(th: Thread, fn: Fn, args: Value[], kwargs: Kwargs): Value {
  const code = fn.code;
  if (code.active > 0) throw new EvalError(`function ${code.name} called recursively`);
  th.step();
  const locals: (Value | undefined | Cell)[] = new Array(code.nlocals);
  if (
    kwargs === null && args.length === code.numParams && code.numKwonly === 0 &&
    !code.hasVarargs && !code.hasKwargs
  ) {
    for (let i = 0; i < args.length; i++) locals[i] = args[i];
  } else {
    setArgs(locals, fn, args, kwargs);
  }
  const cells = code.cells;
  for (let i = 0; i < cells.length; i++) {
    locals[cells[i]] = new Cell(locals[cells[i]] as Value | undefined);
  }
  const parent = th.fr;
  const fr: Frame = {
    th,
    locals,
    fn,
    globals: fn.globals,
    pos: 0,
    ret: null,
    parent,
    filename: code.filename,
  };
  code.active++;
  th.fr = fr;
  try {
    return code.body(fr);
  } catch (e) {
    if (e instanceof EvalError) {
      if (e.pos < 0) e.pos = fr.pos;
      e.frames.push({
        fn: code.name,
        filename: code.filename,
        line: Math.floor(fr.pos / 4096),
        col: fr.pos % 4096,
      });
    }
    throw e;
  } finally {
    code.active--;
    th.fr = parent;
  }
}

function quoteName(k: string): string {
  return JSON.stringify(k);
}

function setArgs(
  locals: (Value | undefined | Cell)[],
  fn: Fn,
  args: Value[],
  kwargs: Kwargs,
): void {
  const code = fn.code;
  const name = code.name;
  const nparams = code.numParams + code.numKwonly;
  if (nparams === 0 && !code.hasVarargs && !code.hasKwargs) {
    const n = args.length + (kwargs?.length ?? 0);
    if (n > 0) throw new EvalError(`function ${name} accepts no arguments (${n} given)`);
    return;
  }
  let kwdict: Dict | null = null;
  if (code.hasKwargs) {
    kwdict = new Dict();
    locals[nparams + (code.hasVarargs ? 1 : 0)] = kwdict;
  }
  const nonkwonly = code.numParams;
  let n = args.length;
  if (n > nonkwonly) {
    if (!code.hasVarargs) {
      let hasPosDefaults = false;
      for (let i = 0; i < nonkwonly; i++) if (fn.defaults[i] !== undefined) hasPosDefaults = true;
      throw new EvalError(
        `function ${name} accepts ${
          hasPosDefaults ? "at most " : ""
        }${nonkwonly} positional argument${nonkwonly === 1 ? "" : "s"} (${n} given)`,
      );
    }
    n = nonkwonly;
  }
  for (let i = 0; i < n; i++) locals[i] = args[i];
  if (code.hasVarargs) {
    locals[nparams] = args.length > n ? new Tuple(args.slice(n)) : EMPTY_TUPLE;
  }
  if (kwargs !== null) {
    const names = code.paramNames;
    for (const [k, v] of kwargs) {
      let i = -1;
      for (let j = 0; j < nparams; j++) {
        if (names[j] === k) {
          i = j;
          break;
        }
      }
      if (i >= 0) {
        if (locals[i] !== undefined) {
          throw new EvalError(`function ${name} got multiple values for parameter ${quoteName(k)}`);
        }
        locals[i] = v;
        continue;
      }
      if (kwdict === null) {
        throw new EvalError(`function ${name} got an unexpected keyword argument ${quoteName(k)}`);
      }
      const size = kwdict.map.size;
      const old = kwdict.map.get(k);
      if (old === undefined) kwdict.map.set(k, [k, v]);
      if (kwdict.map.size === size) {
        throw new EvalError(`function ${name} got multiple values for parameter ${quoteName(k)}`);
      }
    }
  }
  let missing: string[] | null = null;
  for (let i = n; i < nparams; i++) {
    if (locals[i] !== undefined) continue;
    const d = fn.defaults[i];
    if (d === undefined) (missing ??= []).push(code.paramNames[i]);
    else locals[i] = d;
  }
  if (missing !== null) {
    throw new EvalError(
      `function ${name} missing ${missing.length} argument${missing.length > 1 ? "s" : ""} (${
        missing.join(", ")
      })`,
    );
  }
}
