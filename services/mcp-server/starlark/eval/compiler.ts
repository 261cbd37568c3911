/**
 * Compiler: resolved syntax tree → tree of JS closures. Each expression becomes
 * `(fr) => Value`, each statement `(fr) => completion` (0 normal, 1 break, 2 continue,
 * 3 return). Int and string fast paths are inlined; everything else goes to values/*.
 */
import { EvalError, packPos } from "../errors.ts";
import type {
  Arg,
  Binding,
  Clause,
  DefStmt,
  Expr,
  File,
  FnInfo,
  LambdaExpr,
  Param,
  Stmt,
} from "../syntax/ast.ts";
import { getAttr, getMethod, setAttr } from "../lib/attr.ts";
import { binary, unary } from "../values/binary.ts";
import { hashKey, truth, typeName } from "../values/ops.ts";
import { repr } from "../values/repr.ts";
import {
  elements,
  endIteration,
  getIndex,
  mustElements,
  setIndex,
  slice,
  startIteration,
} from "../values/seq.ts";
import {
  Bytes,
  type Cell,
  Dict,
  Float,
  Fn,
  type FnCode,
  type Kwargs,
  List,
  Range,
  Tuple,
  type Value,
} from "../values/value.ts";
import { callValue, type Frame } from "./call.ts";

type E = (fr: Frame) => Value;
type S = (fr: Frame) => number;
type A = (fr: Frame, v: Value) => void;

const NORMAL = 0, BREAK = 1, CONTINUE = 2, RETURN = 3;

export interface CompiledProgram {
  filename: string;
  globals: string[];
  /** Top-level code; frame locals sized by `nlocals`. */
  body: S;
  nlocals: number;
  cells: number[];
}

function cellsOf(fn: FnInfo): number[] {
  return fn.locals.filter((b) => b.scope === "cell").map((b) => b.index);
}

export function compileFile(file: File, universe: Map<string, Value>): CompiledProgram {
  const filename = file.filename;

  function expr(e: Expr): E {
    switch (e.t) {
      case "ident":
        return load(e.b!, packPos(e.line, e.col));
      case "lit": {
        let v: Value;
        if (e.kind === "float") v = new Float(e.v as number);
        else if (e.kind === "bytes") v = new Bytes(e.v as string);
        else v = e.v;
        return () => v;
      }
      case "paren":
        return expr(e.x);
      case "tuple": {
        const es = e.elems.map(expr);
        return (fr) => {
          const out = new Array(es.length);
          for (let i = 0; i < es.length; i++) out[i] = es[i](fr);
          return new Tuple(out);
        };
      }
      case "list": {
        const es = e.elems.map(expr);
        return (fr) => {
          const out = new Array(es.length);
          for (let i = 0; i < es.length; i++) out[i] = es[i](fr);
          return new List(out);
        };
      }
      case "dict": {
        const ks = e.entries.map((en) => expr(en.k));
        const vs = e.entries.map((en) => expr(en.v));
        const KP = e.entries.map((en) => packPos(en.k.line, en.k.col));
        return (fr) => {
          const d = new Dict();
          for (let i = 0; i < ks.length; i++) {
            const k = ks[i](fr), v = vs[i](fr);
            fr.pos = KP[i];
            const hk = hashKey(k);
            if (d.map.has(hk)) throw new EvalError(`duplicate key: ${repr(k)}`);
            d.map.set(hk, [k, v]);
          }
          return d;
        };
      }
      case "unary": {
        const x = expr(e.x);
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
        return binaryExpr(e.op, expr(e.x), expr(e.y), packPos(e.line, e.col));
      case "cond": {
        const c = expr(e.cond), t = expr(e.then), f = expr(e.else);
        return (fr) => {
          const v = c(fr);
          return (v === true || (v !== false && truth(v))) ? t(fr) : f(fr);
        };
      }
      case "call":
        return callExpr(e.fn, e.args, packPos(e.line, e.col));
      case "dot": {
        const x = expr(e.x);
        const name = e.name;
        const P = packPos(e.line, e.col);
        return (fr) => {
          const v = x(fr);
          fr.pos = P;
          return getAttr(fr.th, v, name);
        };
      }
      case "index": {
        const x = expr(e.x), i = expr(e.i);
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
        const x = expr(e.x);
        const none: E = () => null;
        const lo = e.lo ? expr(e.lo) : none,
          hi = e.hi ? expr(e.hi) : none,
          st = e.step ? expr(e.step) : none;
        const P = packPos(e.line, e.col);
        return (fr) => {
          const xv = x(fr), a = lo(fr), b = hi(fr), c = st(fr);
          fr.pos = P;
          return slice(xv, a, b, c);
        };
      }
      case "lambda":
        return makeFunction("lambda", e, e.params, e.fn!, () => {
          const b = expr(e.body);
          return (fr) => b(fr);
        });
      case "comp":
        return comprehension(e);
    }
  }

  function load(b: Binding, P: number): E {
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
        const v = universe.get(name);
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

  function binaryExpr(op: string, x: E, y: E, P: number): E {
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
          if (ta === typeof b && (ta === "number" || ta === "string" || ta === "boolean")) {
            return a === b;
          }
          fr.pos = P;
          return binary(op, a, b, fr.th);
        };
      case "!=":
        return (fr) => {
          const a = x(fr), b = y(fr);
          const ta = typeof a;
          if (ta === typeof b && (ta === "number" || ta === "string" || ta === "boolean")) {
            return a !== b;
          }
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

  function callExpr(fnExpr: Expr, args: Arg[], P: number): E {
    const simple = args.every((a) => a.kind === "pos");
    const posE: E[] = [];
    const named: [string, E][] = [];
    let starE: E | null = null, kwE: E | null = null;
    for (const a of args) {
      if (a.kind === "pos") posE.push(expr(a.v));
      else if (a.kind === "named") named.push([a.name!, expr(a.v)]);
      else if (a.kind === "star") starE = expr(a.v);
      else kwE = expr(a.v);
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
      const recvE = expr(fnExpr.x);
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
    const fE = expr(fnExpr);
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

  function comprehension(e: Expr & { t: "comp" }): E {
    let emit: (fr: Frame, out: Value[] | Dict) => void;
    if (e.dict) {
      const b = e.body as { k: Expr; v: Expr };
      const P = packPos(b.k.line, b.k.col);
      const k = expr(b.k), v = expr(b.v);
      emit = (fr, out) => {
        const kv = k(fr), vv = v(fr);
        fr.pos = P;
        const d = out as Dict;
        const hk = hashKey(kv);
        const old = d.map.get(hk);
        if (old) old[1] = vv;
        else d.map.set(hk, [kv, vv]);
      };
    } else {
      const b = expr(e.body as Expr);
      emit = (fr, out) => {
        (out as Value[]).push(b(fr));
      };
    }
    const run = clauses(e.clauses, 0, emit);
    if (e.dict) {
      return (fr) => {
        const d = new Dict();
        run(fr, d);
        return d;
      };
    }
    return (fr) => {
      const out: Value[] = [];
      run(fr, out);
      return new List(out);
    };
  }

  function clauses(
    cs: Clause[],
    i: number,
    emit: (fr: Frame, out: Value[] | Dict) => void,
  ): (fr: Frame, out: Value[] | Dict) => void {
    if (i === cs.length) return emit;
    const c = cs[i];
    const rest = clauses(cs, i + 1, emit);
    if (c.t === "if") {
      const cond = expr(c.cond);
      return (fr, out) => {
        if (truth(cond(fr))) rest(fr, out);
      };
    }
    const x = expr(c.x);
    const set = assignTo(c.vars);
    const P = packPos(c.line, c.col);
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

  function assignTo(lhs: Expr): A {
    switch (lhs.t) {
      case "ident": {
        const b = lhs.b!;
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
        return assignTo(lhs.x);
      case "index": {
        const x = expr(lhs.x), i = expr(lhs.i);
        const P = packPos(lhs.line, lhs.col);
        return (fr, v) => {
          const xv = x(fr), iv = i(fr);
          fr.pos = P;
          setIndex(xv, iv, v);
        };
      }
      case "dot": {
        const x = expr(lhs.x);
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
        const sets = lhs.elems.map(assignTo);
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
    throw new Error(`internal: bad assignment target ${lhs.t}`);
  }

  /** Iterate `it`, calling body per element; stops on BREAK/RETURN (returned). */
  function forEach(fr: Frame, it: Value, body: (v: Value) => number): number {
    const th = fr.th;
    if (it instanceof Range) {
      const n = it.length;
      for (let k = 0, v = it.start; k < n; k++, v += it.step) {
        if (++th.steps > th.limit) th.slowStep();
        const r = body(v);
        if (r === BREAK) break;
        if (r === RETURN) return RETURN;
      }
      return NORMAL;
    }
    let el: Value[];
    if (it instanceof List || it instanceof Dict) {
      el = it instanceof List ? it.elems : mustElements(it);
      it.itercount++;
      try {
        for (let k = 0; k < el.length; k++) {
          if (++th.steps > th.limit) th.slowStep();
          const r = body(el[k]);
          if (r === BREAK) break;
          if (r === RETURN) return RETURN;
        }
      } finally {
        it.itercount--;
      }
      return NORMAL;
    }
    if (it !== null && typeof it === "object" && "iter" in it) {
      // lazily iterated host values (possibly infinite)
      for (const v of (it as unknown as { iter(): Iterable<Value> }).iter()) {
        if (++th.steps > th.limit) th.slowStep();
        const r = body(v);
        if (r === BREAK) break;
        if (r === RETURN) return RETURN;
      }
      return NORMAL;
    }
    el = mustElements(it);
    startIteration(it);
    try {
      for (let k = 0; k < el.length; k++) {
        if (++th.steps > th.limit) th.slowStep();
        const r = body(el[k]);
        if (r === BREAK) break;
        if (r === RETURN) return RETURN;
      }
    } finally {
      endIteration(it);
    }
    return NORMAL;
  }

  function makeFunction(
    name: string,
    node: DefStmt | LambdaExpr,
    params: Param[],
    info: FnInfo,
    compileBody: () => (fr: Frame) => Value,
  ): E {
    const nparams = info.numParams + info.numKwonly;
    const paramNames = info.locals.slice(0, info.nlocals).map((b) => b.name);
    const dflt: (E | undefined)[] = new Array(nparams).fill(undefined);
    let k = 0;
    for (const p of params) {
      if (p.kind === "req" || p.kind === "opt") {
        if (p.dflt) dflt[k] = expr(p.dflt);
        k++;
      }
    }
    const freeGet = info.freevars.map((b): (fr: Frame) => Cell => {
      if (b.scope === "cell") return (fr) => fr.locals[b.index] as Cell;
      return (fr) => fr.fn!.freevars[b.index];
    });
    const code: FnCode = {
      name,
      filename,
      line: node.line,
      col: node.col,
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
    const hasDefaults = dflt.some((d) => d !== undefined);
    return (fr) => {
      const defaults: (Value | undefined)[] = hasDefaults
        ? dflt.map((d) => (d ? d(fr) : undefined))
        : dflt as undefined[];
      const free = freeGet.map((g) => g(fr));
      return new Fn(code, defaults, free, fr.globals);
    };
  }

  function stmts(list: Stmt[]): S {
    const ss = list.map(stmt);
    const n = ss.length;
    if (n === 1) {
      const s0 = ss[0];
      return (fr) => {
        const th = fr.th;
        if (++th.steps > th.limit) th.slowStep();
        return s0(fr);
      };
    }
    return (fr) => {
      const th = fr.th;
      for (let i = 0; i < n; i++) {
        if (++th.steps > th.limit) th.slowStep();
        const r = ss[i](fr);
        if (r !== NORMAL) return r;
      }
      return NORMAL;
    };
  }

  function stmt(s: Stmt): S {
    switch (s.t) {
      case "expr": {
        const x = expr(s.x);
        return (fr) => {
          x(fr);
          return NORMAL;
        };
      }
      case "pass":
        return () => NORMAL;
      case "break":
        return () => BREAK;
      case "continue":
        return () => CONTINUE;
      case "return": {
        const x = s.x ? expr(s.x) : null;
        if (x === null) {
          return (fr) => {
            fr.ret = null;
            return RETURN;
          };
        }
        return (fr) => {
          fr.ret = x(fr);
          return RETURN;
        };
      }
      case "if": {
        const c = expr(s.cond), t = stmts(s.then), f = s.else.length ? stmts(s.else) : () => NORMAL;
        return (fr) => {
          const v = c(fr);
          return (v === true || (v !== false && truth(v))) ? t(fr) : f(fr);
        };
      }
      case "for": {
        const x = expr(s.x);
        const set = assignTo(s.vars);
        const body = stmts(s.body);
        const P = packPos(s.line, s.col);
        return (fr) => {
          const it = x(fr);
          fr.pos = P;
          return forEach(fr, it, (v) => {
            set(fr, v);
            return body(fr);
          });
        };
      }
      case "def": {
        const mk = makeFunction(s.name.name, s, s.params, s.fn!, () => {
          const body = stmts(s.body);
          return (fr) => (body(fr) === RETURN ? fr.ret : null);
        });
        const set = assignTo(s.name);
        return (fr) => {
          set(fr, mk(fr));
          return NORMAL;
        };
      }
      case "assign":
        return assignStmt(s);
      case "load": {
        const sets = s.names.map((n) => [n.from, assignTo(n.to)] as const);
        const module = s.module;
        const P = packPos(s.line, s.col);
        return (fr) => {
          fr.pos = P;
          const loader = fr.th.loader;
          if (loader === null) throw new EvalError("load not implemented by this application");
          for (const [from, set] of sets) set(fr, loader(module, from));
          return NORMAL;
        };
      }
      case "while":
        return (fr) => {
          fr.pos = packPos(s.line, s.col);
          throw new EvalError(`${s.t} statement not supported`);
        };
    }
  }

  function assignStmt(s: Stmt & { t: "assign" }): S {
    const rhs = expr(s.rhs);
    if (s.op === "=") {
      const set = assignTo(s.lhs);
      return (fr) => {
        set(fr, rhs(fr));
        return NORMAL;
      };
    }
    const op = s.op.slice(0, -1);
    const P = packPos(s.line, s.col);
    const apply = (fr: Frame, old: Value, y: Value): Value => {
      fr.pos = P;
      if (op === "+" && old instanceof List && elements(y) !== null) {
        old.checkMutable("apply += to", "list");
        const el = mustElements(y, undefined, fr.th);
        fr.th.charge(el.length >> 3);
        fr.th.checkAlloc((old.elems.length + el.length) * 8);
        if (el === old.elems) old.elems.push(...el.slice());
        else for (const v of el) old.elems.push(v);
        return old;
      }
      if (op === "|" && old instanceof Dict && y instanceof Dict) {
        return binary(op, old, y, fr.th);
      }
      if (op === "+" && typeof old === "number" && typeof y === "number") {
        const r = old + y;
        if (Number.isSafeInteger(r)) return r;
      }
      return binary(op, old, y, fr.th);
    };
    const lhs = s.lhs.t === "paren" ? s.lhs.x : s.lhs;
    if (lhs.t === "ident") {
      const get = load(lhs.b!, packPos(lhs.line, lhs.col));
      const set = assignTo(lhs);
      return (fr) => {
        const old = get(fr);
        set(fr, apply(fr, old, rhs(fr)));
        return NORMAL;
      };
    }
    if (lhs.t === "index") {
      const x = expr(lhs.x), i = expr(lhs.i);
      const IP = packPos(lhs.line, lhs.col);
      return (fr) => {
        const xv = x(fr), iv = i(fr);
        fr.pos = IP;
        const old = getIndex(xv, iv);
        const nv = apply(fr, old, rhs(fr));
        fr.pos = IP;
        setIndex(xv, iv, nv);
        return NORMAL;
      };
    }
    if (lhs.t === "dot") {
      const x = expr(lhs.x);
      const name = lhs.name;
      return (fr) => {
        const xv = x(fr);
        fr.pos = P;
        const old = getAttr(fr.th, xv, name);
        const nv = apply(fr, old, rhs(fr));
        fr.pos = P;
        setAttr(xv, name, nv);
        return NORMAL;
      };
    }
    throw new Error(`internal: bad augmented target ${lhs.t}`);
  }

  const body = stmts(file.stmts);
  return {
    filename,
    globals: file.globals!,
    body,
    nlocals: file.fn!.nlocals,
    cells: cellsOf(file.fn!),
  };
}
