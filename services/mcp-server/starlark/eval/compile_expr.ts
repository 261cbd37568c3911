/** Expressions → closures (fast paths for ints and strings inlined). */
import { EvalError, packPos } from "../errors.ts";
import type { Arg, Binding, Clause, Expr } from "../syntax/ast.ts";
import { getAttr, getMethod } from "../lib/attr.ts";
import { binary, unary } from "../values/binary.ts";
import { dictPut, keyFor } from "../values/hash.ts";
import { truth, typeName } from "../values/ops.ts";
import { repr } from "../values/repr.ts";
import { getIndex, mustElements, slice } from "../values/seq.ts";
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
import { type Ctx, type E, NORMAL } from "./compile_types.ts";
import { assignTo, forEach, makeFunction } from "./compile_stmt.ts";

export function expr(c: Ctx, e: Expr): E {
  switch (e.t) {
    case "ident":
      return load(c, e.b!, packPos(e.line, e.col));
    case "lit": {
      let v: Value;
      if (e.kind === "float") v = new Float(e.v as number);
      else if (e.kind === "bytes") v = new Bytes(e.v as string);
      else v = e.v;
      return () => v;
    }
    case "paren":
      return expr(c, e.x);
    case "tuple": {
      const es = e.elems.map((x) => expr(c, x));
      return (fr) => {
        const out = new Array(es.length);
        for (let i = 0; i < es.length; i++) out[i] = es[i](fr);
        return new Tuple(out);
      };
    }
    case "list": {
      const es = e.elems.map((x) => expr(c, x));
      return (fr) => {
        const out = new Array(es.length);
        for (let i = 0; i < es.length; i++) out[i] = es[i](fr);
        return new List(out);
      };
    }
    case "dict": {
      const ks = e.entries.map((en) => expr(c, en.k));
      const vs = e.entries.map((en) => expr(c, en.v));
      const KP = e.entries.map((en) => packPos(en.k.line, en.k.col));
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
      const x = expr(c, e.x);
      const P = packPos(e.line, e.col);
      if (e.op === "not") return (fr) => !truth(x(fr));
      const op = e.op;
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
      return binaryExpr(e.op, expr(c, e.x), expr(c, e.y), packPos(e.line, e.col));
    case "cond": {
      const cond = expr(c, e.cond), t = expr(c, e.then), f = expr(c, e.else);
      return (fr) => {
        const v = cond(fr);
        return (v === true || (v !== false && truth(v))) ? t(fr) : f(fr);
      };
    }
    case "call":
      return callExpr(c, e.fn, e.args, packPos(e.line, e.col));
    case "dot": {
      const x = expr(c, e.x);
      const name = e.name;
      const P = packPos(e.line, e.col);
      return (fr) => {
        const v = x(fr);
        fr.pos = P;
        return getAttr(fr.th, v, name);
      };
    }
    case "index": {
      const x = expr(c, e.x), i = expr(c, e.i);
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
      const x = expr(c, e.x);
      const none: E = () => null;
      const lo = e.lo ? expr(c, e.lo) : none,
        hi = e.hi ? expr(c, e.hi) : none,
        st = e.step ? expr(c, e.step) : none;
      const P = packPos(e.line, e.col);
      return (fr) => {
        const xv = x(fr), a = lo(fr), b = hi(fr), c = st(fr);
        fr.pos = P;
        return slice(xv, a, b, c);
      };
    }
    case "lambda":
      return makeFunction(c, "lambda", e, e.params, e.fn!, () => {
        const b = expr(c, e.body);
        return (fr) => b(fr);
      });
    case "comp":
      return comprehension(c, e);
  }
}

export function load(c: Ctx, b: Binding, P: number): E {
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

export function binaryExpr(op: string, x: E, y: E, P: number): E {
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

export function callExpr(c: Ctx, fnExpr: Expr, args: Arg[], P: number): E {
  const simple = args.every((a) => a.kind === "pos");
  const posE: E[] = [];
  const named: [string, E][] = [];
  let starE: E | null = null, kwE: E | null = null;
  for (const a of args) {
    if (a.kind === "pos") posE.push(expr(c, a.v));
    else if (a.kind === "named") named.push([a.name!, expr(c, a.v)]);
    else if (a.kind === "star") starE = expr(c, a.v);
    else kwE = expr(c, a.v);
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
  if (fnExpr.t === "dot") {
    // method call: avoid allocating a bound method
    const recvE = expr(c, fnExpr.x);
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

export function comprehension(c: Ctx, e: Expr & { t: "comp" }): E {
  let emit: (fr: Frame, out: Value[] | Dict) => void;
  if (e.dict) {
    const b = e.body as { k: Expr; v: Expr };
    const P = packPos(b.k.line, b.k.col);
    const k = expr(c, b.k), v = expr(c, b.v);
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

export function clauses(
  c: Ctx,
  cs: Clause[],
  i: number,
  emit: (fr: Frame, out: Value[] | Dict) => void,
): (fr: Frame, out: Value[] | Dict) => void {
  if (i === cs.length) return emit;
  const cl = cs[i];
  const rest = clauses(c, cs, i + 1, emit);
  if (cl.t === "if") {
    const cond = expr(c, cl.cond);
    return (fr, out) => {
      if (truth(cond(fr))) rest(fr, out);
    };
  }
  const x = expr(c, cl.x);
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
