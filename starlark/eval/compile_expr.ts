/**
 * Expressions → closures, with the int and string fast paths inlined; also assignment targets
 * (which evaluate sub-expressions) and the default values of function parameters.
 *
 * @module
 */
import { EvalError, packPos } from "../errors.ts";
import type {
  Arg,
  BinaryExpr,
  Binding,
  Clause,
  Comprehension,
  DictEntry,
  Expr,
  FnInfo,
  Literal,
  Param,
} from "../syntax/ast.ts";
import { getAttr, getMethod, setAttr } from "../lib/attr.ts";
import { binary, unary } from "../values/binary.ts";
import { dictPut, keyFor } from "../values/hash.ts";
import { truth, typeName } from "../values/ops.ts";
import { repr } from "../values/repr.ts";
import { getIndex, mustElements, setIndex, slice } from "../values/seq.ts";
import {
  Bytes,
  type Cell,
  Dict,
  Float,
  type Kwargs,
  List,
  Tuple,
  type Value,
} from "../values/value.ts";
import { callValue, type Frame } from "./call.ts";

import { ELEM_BYTES, ENTRY_BYTES, STR_BYTES } from "../thread.ts";
import {
  type CompiledExpr,
  type CompiledTarget,
  type CompilerContext,
  NORMAL,
} from "./compile_types.ts";
import { makeFunction } from "./compile_function.ts";
import { forEach } from "./iterate.ts";

/** Compile an expression. */
export function expr(c: CompilerContext, e: Expr): CompiledExpr {
  switch (e.kind) {
    case "ident":
      return load(c, e.binding!, packPos(e.line, e.col));
    case "literal": {
      let v: Value;
      if (e.token === "float") v = new Float(e.value as number);
      else if (e.token === "bytes") v = new Bytes(e.value as string);
      else v = e.value;
      return () => v;
    }
    case "paren":
      return expr(c, e.inner);
    case "tuple": {
      const es = e.elements.map((x) => expr(c, x));
      return (fr) => {
        const out = new Array(es.length);
        for (let i = 0; i < es.length; i++) out[i] = es[i](fr);
        return new Tuple(out);
      };
    }
    case "list": {
      const es = e.elements.map((x) => expr(c, x));
      return (fr) => {
        const out = new Array(es.length);
        for (let i = 0; i < es.length; i++) out[i] = es[i](fr);
        return new List(out);
      };
    }
    case "dict": {
      const ks = e.entries.map((en) => expr(c, en.key));
      const vs = e.entries.map((en) => expr(c, en.value));
      const KP = e.entries.map((en) => packPos(en.key.line, en.key.col));
      const size = ENTRY_BYTES * ks.length;
      return (fr) => {
        const d = new Dict();
        for (let i = 0; i < ks.length; i++) {
          const k = ks[i](fr), v = vs[i](fr);
          fr.pos = KP[i];
          const hk = keyFor(d, k);
          if (d.map.has(hk)) throw new EvalError(`duplicate key: ${repr(k)}`);
          d.map.set(hk, [k, v]);
        }
        fr.th.alloc(size);
        return d;
      };
    }
    case "unary": {
      const x = expr(c, e.operand);
      const P = packPos(e.line, e.col);
      if (e.operator === "not") return (fr) => !truth(x(fr));
      const op = e.operator;
      if (op === "-") {
        return (fr) => {
          const v = x(fr);
          if (typeof v === "number" && v !== 0) return -v;
          fr.pos = P;
          return unary(op, v);
        };
      }
      return (fr) => {
        const v = x(fr);
        fr.pos = P;
        return unary(op, v);
      };
    }
    case "binary":
      if (e.operator === "+") return plus(c, e);
      return binaryExpr(e.operator, expr(c, e.left), expr(c, e.right), packPos(e.line, e.col));
    case "conditional": {
      const cond = expr(c, e.condition), t = expr(c, e.then), f = expr(c, e.else);
      return (fr) => {
        const v = cond(fr);
        return (v === true || (v !== false && truth(v))) ? t(fr) : f(fr);
      };
    }
    case "call":
      return callExpr(c, e.callee, e.args, packPos(e.line, e.col));
    case "dot": {
      const x = expr(c, e.object);
      const name = e.name;
      const P = packPos(e.line, e.col);
      return (fr) => {
        const v = x(fr);
        fr.pos = P;
        return getAttr(fr.th, v, name);
      };
    }
    case "index": {
      const x = expr(c, e.object), i = expr(c, e.index);
      const P = packPos(e.line, e.col);
      return (fr) => {
        const xv = x(fr), iv = i(fr);
        if (xv instanceof List && typeof iv === "number" && iv >= 0 && iv < xv.elems.length) {
          return xv.elems[iv];
        }
        fr.pos = P;
        return getIndex(xv, iv);
      };
    }
    case "slice": {
      const x = expr(c, e.object);
      const none: CompiledExpr = () => null;
      const lo = e.low ? expr(c, e.low) : none,
        hi = e.high ? expr(c, e.high) : none,
        st = e.step ? expr(c, e.step) : none;
      const P = packPos(e.line, e.col);
      return (fr) => {
        const xv = x(fr), a = lo(fr), b = hi(fr), c = st(fr);
        fr.pos = P;
        return slice(xv, a, b, c);
      };
    }
    case "lambda":
      return makeFunction(
        c,
        "lambda",
        e,
        e.function!,
        compileDefaults(c, e.params, e.function!),
        () => {
          const b = expr(c, e.body);
          return (fr) => b(fr);
        },
      );
    case "comprehension":
      return comprehension(c, e);
  }
}

/** Compile a read of a resolved variable (`P`: the packed position of the use). */
export function load(c: CompilerContext, b: Binding, P: number): CompiledExpr {
  const name = b.name;
  const i = b.index;
  switch (b.scope) {
    case "local":
      return (fr) => {
        const v = fr.locals[i];
        if (v === undefined) {
          fr.pos = P;
          throw new EvalError(`local variable ${name} referenced before assignment`);
        }
        return v as Value;
      };
    case "cell":
      return (fr) => {
        const v = (fr.locals[i] as Cell).v;
        if (v === undefined) {
          fr.pos = P;
          throw new EvalError(`local variable ${name} referenced before assignment`);
        }
        return v;
      };
    case "free":
      return (fr) => {
        const v = fr.fn!.freevars[i].v;
        if (v === undefined) {
          fr.pos = P;
          throw new EvalError(`local variable ${name} referenced before assignment`);
        }
        return v;
      };
    case "global":
      return (fr) => {
        const v = fr.globals[i];
        if (v === undefined) {
          fr.pos = P;
          throw new EvalError(`global variable ${name} referenced before assignment`);
        }
        return v;
      };
    case "predeclared":
      return (fr) => {
        const v = fr.th.predeclared.get(name);
        if (v === undefined) {
          fr.pos = P;
          throw new EvalError(`undefined: ${name}`);
        }
        return v;
      };
    case "universal": {
      const v = c.universe.get(name);
      if (v === undefined) throw new Error(`internal: universal ${name} missing`);
      return () => v;
    }
    default:
      return (fr) => {
        fr.pos = P;
        throw new EvalError(`undefined: ${name}`);
      };
  }
}

/** One operand of a chain of `+`, with the position of the `+` before it (-1 for the first). */
interface Summand {
  x: Expr;
  P: number;
}

/** `e` without enclosing parentheses. */
function unparen(e: Expr): Expr {
  while (e.kind === "paren") e = e.inner;
  return e;
}

/**
 * A chain `((a + b) + ...) + z`, compiled as starlark-go's compiler does it: the operands of the
 * left-leaning tree in source order, adjacent bytes literals folded into one at compile time. So
 * `b"a" + b"b"` is `b"ab"`, while `x + b"b"` with `x = b"a"` fails `unknown binary op: bytes +
 * bytes` at run time, as in starlark-go (its `Binary` has no bytes case). starlark-go folds string,
 * list and tuple literals too; for those the result and any error are the same either way, so only
 * bytes are folded here.
 */
function plus(c: CompilerContext, e: BinaryExpr): CompiledExpr {
  const args: Summand[] = [];
  for (let p = e;;) {
    args.push({ x: unparen(p.right), P: packPos(p.line, p.col) });
    const left = unparen(p.left);
    if (left.kind !== "binary" || left.operator !== "+") {
      args.push({ x: left, P: -1 });
      break;
    }
    p = left;
  }
  args.reverse();
  const isBytes = (x: Expr) => x.kind === "literal" && x.token === "bytes";
  const out: Summand[] = [];
  for (let i = 0; i < args.length;) {
    let j = i + 1;
    if (isBytes(args[i].x)) {
      while (j < args.length && isBytes(args[j].x)) j++;
      if (j > i + 1) {
        const value = args.slice(i, j).map((a) => (a.x as Literal).value as string).join("");
        args[i] = { x: { ...(args[i].x as Literal), value }, P: args[i].P };
      }
    }
    out.push(args[i]);
    i = j;
  }
  let acc = expr(c, out[0].x);
  for (const s of out.slice(1)) acc = binaryExpr("+", acc, expr(c, s.x), s.P);
  return acc;
}

/** Compile a binary operation on compiled operands (`P`: the packed operator position). */
function binaryExpr(
  op: string,
  x: CompiledExpr,
  y: CompiledExpr,
  P: number,
): CompiledExpr {
  switch (op) {
    case "and":
      return (fr) => {
        const v = x(fr);
        return truth(v) ? y(fr) : v;
      };
    case "or":
      return (fr) => {
        const v = x(fr);
        return truth(v) ? v : y(fr);
      };
    case "+":
      return (fr) => {
        const a = x(fr), b = y(fr);
        if (typeof a === "number" && typeof b === "number") {
          const r = a + b;
          if (r <= 9007199254740991 && r >= -9007199254740991) return r;
        } else if (typeof a === "string" && typeof b === "string" && a.length + b.length < 4096) {
          fr.th.alloc(STR_BYTES + a.length + b.length);
          return a + b;
        }
        fr.pos = P;
        return binary(op, a, b, fr.th);
      };
    case "-":
      return (fr) => {
        const a = x(fr), b = y(fr);
        if (typeof a === "number" && typeof b === "number") {
          const r = a - b;
          if (r <= 9007199254740991 && r >= -9007199254740991) return r;
        }
        fr.pos = P;
        return binary(op, a, b, fr.th);
      };
    case "*":
      return (fr) => {
        const a = x(fr), b = y(fr);
        if (typeof a === "number" && typeof b === "number") {
          const r = a * b;
          if (r <= 9007199254740991 && r >= -9007199254740991) return r === 0 ? 0 : r;
        }
        fr.pos = P;
        return binary(op, a, b, fr.th);
      };
    case "<":
      return (fr) => {
        const a = x(fr), b = y(fr);
        if (typeof a === "number" && typeof b === "number") return a < b;
        fr.pos = P;
        return binary(op, a, b, fr.th);
      };
    case "<=":
      return (fr) => {
        const a = x(fr), b = y(fr);
        if (typeof a === "number" && typeof b === "number") return a <= b;
        fr.pos = P;
        return binary(op, a, b, fr.th);
      };
    case ">":
      return (fr) => {
        const a = x(fr), b = y(fr);
        if (typeof a === "number" && typeof b === "number") return a > b;
        fr.pos = P;
        return binary(op, a, b, fr.th);
      };
    case ">=":
      return (fr) => {
        const a = x(fr), b = y(fr);
        if (typeof a === "number" && typeof b === "number") return a >= b;
        fr.pos = P;
        return binary(op, a, b, fr.th);
      };
    case "==":
      return (fr) => {
        const a = x(fr), b = y(fr);
        const ta = typeof a;
        if (ta === typeof b && (ta === "number" || ta === "boolean")) return a === b;
        if (typeof a === "string" && typeof b === "string" && a.length < 1024) return a === b;
        fr.pos = P;
        return binary(op, a, b, fr.th);
      };
    case "!=":
      return (fr) => {
        const a = x(fr), b = y(fr);
        const ta = typeof a;
        if (ta === typeof b && (ta === "number" || ta === "boolean")) return a !== b;
        if (typeof a === "string" && typeof b === "string" && a.length < 1024) return a !== b;
        fr.pos = P;
        return binary(op, a, b, fr.th);
      };
    case "%":
      return (fr) => {
        const a = x(fr), b = y(fr);
        if (typeof a === "number" && typeof b === "number" && b > 0 && a >= 0) return a % b;
        fr.pos = P;
        return binary(op, a, b, fr.th);
      };
    case "//":
      return (fr) => {
        const a = x(fr), b = y(fr);
        if (typeof a === "number" && typeof b === "number" && b > 0 && a >= 0) {
          return (a - (a % b)) / b;
        }
        fr.pos = P;
        return binary(op, a, b, fr.th);
      };
    default:
      return (fr) => {
        const a = x(fr), b = y(fr);
        fr.pos = P;
        return binary(op, a, b, fr.th);
      };
  }
}

/** Compile a call (`P`: the packed position of its `(`); method calls bind no method value. */
function callExpr(
  c: CompilerContext,
  fnExpr: Expr,
  args: Arg[],
  P: number,
): CompiledExpr {
  const simple = args.every((a) => a.kind === "positional");
  const posE: CompiledExpr[] = [];
  const named: [string, CompiledExpr][] = [];
  let starE: CompiledExpr | null = null, kwE: CompiledExpr | null = null;
  for (const a of args) {
    if (a.kind === "positional") posE.push(expr(c, a.value));
    else if (a.kind === "named") named.push([a.name!, expr(c, a.value)]);
    else if (a.kind === "star") starE = expr(c, a.value);
    else kwE = expr(c, a.value);
  }
  const np = posE.length;
  const buildArgs = (fr: Frame): [Value[], Kwargs] => {
    const pos: Value[] = new Array(np);
    for (let i = 0; i < np; i++) pos[i] = posE[i](fr);
    let kw: Kwargs = null;
    if (named.length > 0) {
      kw = new Array(named.length);
      for (let i = 0; i < named.length; i++) kw[i] = [named[i][0], named[i][1](fr)];
    }
    if (starE !== null) {
      const s = starE(fr);
      fr.pos = P;
      const el = s instanceof List || s instanceof Tuple ? s.elems : null;
      if (el === null) {
        const e2 = (() => {
          try {
            return mustElements(s);
          } catch {
            throw new EvalError(`argument after * must be iterable, not ${typeName(s)}`);
          }
        })();
        for (const v of e2) pos.push(v);
      } else for (const v of el) pos.push(v);
    }
    if (kwE !== null) {
      const d = kwE(fr);
      fr.pos = P;
      if (!(d instanceof Dict)) {
        throw new EvalError(`argument after ** must be a mapping, not ${typeName(d)}`);
      }
      kw ??= [];
      for (const [k, v] of d.map.values()) {
        if (typeof k !== "string") {
          throw new EvalError(`keywords must be strings, not ${typeName(k)}`);
        }
        kw.push([k, v]);
      }
    }
    return [pos, kw];
  };
  if (fnExpr.kind === "dot") {
    // method call: avoid allocating a bound method
    const recvE = expr(c, fnExpr.object);
    const name = fnExpr.name;
    const DP = packPos(fnExpr.line, fnExpr.col);
    return (fr) => {
      const recv = recvE(fr);
      fr.pos = DP;
      const m = getMethod(recv, name);
      if (m !== null) {
        let a: Value[], kw: Kwargs = null;
        if (simple) {
          a = new Array(np);
          for (let i = 0; i < np; i++) a[i] = posE[i](fr);
        } else [a, kw] = buildArgs(fr);
        fr.pos = P;
        const th = fr.th;
        th.step();
        return m(th, a, kw, recv);
      }
      const f = getAttr(fr.th, recv, name);
      const [a, kw] = buildArgs(fr);
      fr.pos = P;
      return callValue(fr.th, f, a, kw);
    };
  }
  const fE = expr(c, fnExpr);
  if (simple) {
    return (fr) => {
      const f = fE(fr);
      const a: Value[] = new Array(np);
      for (let i = 0; i < np; i++) a[i] = posE[i](fr);
      fr.pos = P;
      return callValue(fr.th, f, a, null);
    };
  }
  return (fr) => {
    const f = fE(fr);
    const [a, kw] = buildArgs(fr);
    fr.pos = P;
    return callValue(fr.th, f, a, kw);
  };
}

/** Compile a list or dict comprehension. */
function comprehension(c: CompilerContext, e: Comprehension): CompiledExpr {
  let emit: (fr: Frame, out: Value[] | Dict) => void;
  if (e.dict) {
    const b = e.body as DictEntry;
    const P = packPos(b.key.line, b.key.col);
    const k = expr(c, b.key), v = expr(c, b.value);
    emit = (fr, out) => {
      const kv = k(fr), vv = v(fr);
      fr.pos = P;
      dictPut(out as Dict, kv, vv);
    };
  } else {
    const b = expr(c, e.body as Expr);
    emit = (fr, out) => {
      const v = b(fr);
      fr.th.alloc(ELEM_BYTES);
      (out as Value[]).push(v);
    };
  }
  const run = clauses(c, e.clauses, 0, emit);
  if (e.dict) {
    return (fr) => {
      const d = new Dict();
      run(fr, d);
      return d;
    };
  }
  return (fr) => {
    const l = new List([]);
    run(fr, l.elems);
    return l;
  };
}

/** Compile comprehension clauses `cs[i:]` around `emit` (which adds one element). */
function clauses(
  c: CompilerContext,
  cs: Clause[],
  i: number,
  emit: (fr: Frame, out: Value[] | Dict) => void,
): (fr: Frame, out: Value[] | Dict) => void {
  if (i === cs.length) return emit;
  const cl = cs[i];
  const rest = clauses(c, cs, i + 1, emit);
  if (cl.kind === "if") {
    const cond = expr(c, cl.condition);
    return (fr, out) => {
      if (truth(cond(fr))) rest(fr, out);
    };
  }
  const x = expr(c, cl.iterable);
  const set = assignTo(c, cl.vars);
  const P = packPos(cl.line, cl.col);
  return (fr, out) => {
    const it = x(fr);
    fr.pos = P;
    forEach(fr, it, (v) => {
      set(fr, v);
      rest(fr, out);
      return NORMAL;
    });
  };
}

/** Compile an assignment target (a variable, `x[i]`, `x.name`, or a tuple/list of them). */
export function assignTo(c: CompilerContext, lhs: Expr): CompiledTarget {
  switch (lhs.kind) {
    case "ident": {
      const b = lhs.binding!;
      const i = b.index;
      switch (b.scope) {
        case "local":
          return (fr, v) => {
            fr.locals[i] = v;
          };
        case "cell":
          return (fr, v) => {
            (fr.locals[i] as Cell).v = v;
          };
        case "global":
          return (fr, v) => {
            fr.globals[i] = v;
          };
        case "free":
          return (fr, v) => {
            fr.fn!.freevars[i].v = v;
          };
        default:
          throw new Error(`internal: cannot assign to ${b.scope} ${b.name}`);
      }
    }
    case "paren":
      return assignTo(c, lhs.inner);
    case "index": {
      const x = expr(c, lhs.object), i = expr(c, lhs.index);
      const P = packPos(lhs.line, lhs.col);
      return (fr, v) => {
        const xv = x(fr), iv = i(fr);
        fr.pos = P;
        setIndex(xv, iv, v);
      };
    }
    case "dot": {
      const x = expr(c, lhs.object);
      const P = packPos(lhs.line, lhs.col);
      const name = lhs.name;
      return (fr, v) => {
        const xv = x(fr);
        fr.pos = P;
        setAttr(xv, name, v);
      };
    }
    case "tuple":
    case "list": {
      const sets = lhs.elements.map((x) => assignTo(c, x));
      const n = sets.length;
      const P = packPos(lhs.line, lhs.col);
      return (fr, v) => {
        fr.pos = P;
        let el: Value[];
        if (v instanceof Tuple || v instanceof List) el = v.elems;
        else {
          const e = v === null || typeof v !== "object" || v instanceof Float ? null : (() => {
            try {
              return mustElements(v);
            } catch {
              return null;
            }
          })();
          if (e === null || typeof v === "string") {
            throw new EvalError(`got ${typeName(v)} in sequence assignment`);
          }
          el = e;
        }
        if (el.length > n) {
          throw new EvalError(`too many values to unpack (got ${el.length}, want ${n})`);
        }
        if (el.length < n) {
          throw new EvalError(`too few values to unpack (got ${el.length}, want ${n})`);
        }
        for (let k = 0; k < n; k++) sets[k](fr, el[k]);
      };
    }
  }
  throw new Error(`internal: bad assignment target ${lhs.kind}`);
}

/**
 * Compile the default values of a function's parameters, by parameter slot (undefined for a
 * parameter without one); evaluated each time the def or lambda runs.
 */
export function compileDefaults(
  c: CompilerContext,
  params: Param[],
  info: FnInfo,
): (CompiledExpr | undefined)[] {
  const nparams = info.numParams + info.numKwonly;
  const defaults: (CompiledExpr | undefined)[] = new Array(nparams).fill(undefined);
  let k = 0;
  for (const p of params) {
    if (p.kind === "required" || p.kind === "optional") {
      if (p.defaultValue) defaults[k] = expr(c, p.defaultValue);
      k++;
    }
  }
  return defaults;
}
