/** Statements, assignment targets, loops and function values → closures. */
import { EvalError, packPos } from "../errors.ts";
import type { DefStmt, Expr, FnInfo, LambdaExpr, Param, Stmt } from "../syntax/ast.ts";
import { getAttr, setAttr } from "../lib/attr.ts";
import { binary } from "../values/binary.ts";
import { truth, typeName } from "../values/ops.ts";
import { dictPut } from "../values/hash.ts";
import {
  elements,
  endIteration,
  extendList,
  getIndex,
  mustElements,
  setIndex,
  startIteration,
} from "../values/seq.ts";
import {
  type Cell,
  Dict,
  Float,
  Fn,
  type FnCode,
  List,
  Range,
  Tuple,
  type Value,
} from "../values/value.ts";
import type { Frame } from "./call.ts";

import {
  type A,
  BREAK,
  cellsOf,
  CONTINUE,
  type Ctx,
  type E,
  NORMAL,
  RETURN,
  type S,
} from "./compile_types.ts";
import { expr, load } from "./compile_expr.ts";

export function assignTo(c: Ctx, lhs: Expr): A {
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
      return assignTo(c, lhs.x);
    case "index": {
      const x = expr(c, lhs.x), i = expr(c, lhs.i);
      const P = packPos(lhs.line, lhs.col);
      return (fr, v) => {
        const xv = x(fr), iv = i(fr);
        fr.pos = P;
        setIndex(xv, iv, v);
      };
    }
    case "dot": {
      const x = expr(c, lhs.x);
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
      const sets = lhs.elems.map((x) => assignTo(c, x));
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

export function forEach(fr: Frame, it: Value, body: (v: Value) => number): number {
  const th = fr.th;
  if (it instanceof Range) {
    const n = it.length;
    if (it.big !== null) {
      for (let k = 0; k < n; k++) {
        if (++th.steps > th.limit) th.slowStep();
        const r = body(it.at(k));
        if (r === BREAK) break;
        if (r === RETURN) return RETURN;
      }
      return NORMAL;
    }
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

export function makeFunction(
  c: Ctx,
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
      if (p.dflt) dflt[k] = expr(c, p.dflt);
      k++;
    }
  }
  const freeGet = info.freevars.map((b): (fr: Frame) => Cell => {
    if (b.scope === "cell") return (fr) => fr.locals[b.index] as Cell;
    return (fr) => fr.fn!.freevars[b.index];
  });
  const code: FnCode = {
    name,
    filename: c.filename,
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

export function stmts(c: Ctx, list: Stmt[]): S {
  const ss = list.map((x) => stmt(c, x));
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

export function stmt(c: Ctx, s: Stmt): S {
  switch (s.t) {
    case "expr": {
      const x = expr(c, s.x);
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
      const x = s.x ? expr(c, s.x) : null;
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
      const cond = expr(c, s.cond), t = stmts(c, s.then);
      const f = s.else.length ? stmts(c, s.else) : () => NORMAL;
      return (fr) => {
        const v = cond(fr);
        return (v === true || (v !== false && truth(v))) ? t(fr) : f(fr);
      };
    }
    case "for": {
      const x = expr(c, s.x);
      const set = assignTo(c, s.vars);
      const body = stmts(c, s.body);
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
      const mk = makeFunction(c, s.name.name, s, s.params, s.fn!, () => {
        const body = stmts(c, s.body);
        return (fr) => (body(fr) === RETURN ? fr.ret : null);
      });
      const set = assignTo(c, s.name);
      return (fr) => {
        set(fr, mk(fr));
        return NORMAL;
      };
    }
    case "assign":
      return assignStmt(c, s);
    case "load": {
      const sets = s.names.map((n) => [n.from, assignTo(c, n.to)] as const);
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

export function assignStmt(c: Ctx, s: Stmt & { t: "assign" }): S {
  const rhs = expr(c, s.rhs);
  if (s.op === "=") {
    const set = assignTo(c, s.lhs);
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
      extendList(fr.th, old, mustElements(y, undefined, fr.th));
      return old;
    }
    if (op === "|" && old instanceof Dict && y instanceof Dict) {
      // in place, as starlark-go: an alias of `old` sees the update
      old.checkMutable("apply |= to", "hash table");
      fr.th.charge(y.map.size >> 2);
      for (const [k, v] of [...y.map.values()]) dictPut(old, k, v);
      return old;
    }
    if (op === "+" && typeof old === "number" && typeof y === "number") {
      const r = old + y;
      if (Number.isSafeInteger(r)) return r;
    }
    return binary(op, old, y, fr.th);
  };
  const lhs = s.lhs.t === "paren" ? s.lhs.x : s.lhs;
  if (lhs.t === "ident") {
    const get = load(c, lhs.b!, packPos(lhs.line, lhs.col));
    const set = assignTo(c, lhs);
    return (fr) => {
      const old = get(fr);
      set(fr, apply(fr, old, rhs(fr)));
      return NORMAL;
    };
  }
  if (lhs.t === "index") {
    const x = expr(c, lhs.x), i = expr(c, lhs.i);
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
    const x = expr(c, lhs.x);
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
