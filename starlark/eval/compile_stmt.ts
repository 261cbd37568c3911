/**
 * Statements → closures returning a completion code (NORMAL, BREAK, CONTINUE, RETURN).
 *
 * @module
 */
import { EvalError, packPos } from "../errors.ts";
import type { AssignStmt, Stmt } from "../syntax/ast.ts";
import { getAttr, setAttr } from "../lib/attr.ts";
import { binary } from "../values/binary.ts";
import { truth } from "../values/ops.ts";
import { dictPut } from "../values/hash.ts";
import { elements, extendList, getIndex, mustElements, setIndex } from "../values/seq.ts";
import { Dict, List, type Value } from "../values/value.ts";
import type { Frame } from "./call.ts";
import {
  BREAK,
  type CompiledStmt,
  type CompilerContext,
  CONTINUE,
  NORMAL,
  RETURN,
} from "./compile_types.ts";
import { assignTo, compileDefaults, expr, load } from "./compile_expr.ts";
import { makeFunction } from "./compile_function.ts";
import { forEach } from "./iterate.ts";

/** Compile a statement list (one step charged per statement). */
export function stmts(c: CompilerContext, list: Stmt[]): CompiledStmt {
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

/** Compile one statement. */
function stmt(c: CompilerContext, s: Stmt): CompiledStmt {
  switch (s.kind) {
    case "expr": {
      const x = expr(c, s.expr);
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
      const x = s.result ? expr(c, s.result) : null;
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
      const cond = expr(c, s.condition), t = stmts(c, s.then);
      const f = s.else.length ? stmts(c, s.else) : () => NORMAL;
      return (fr) => {
        const v = cond(fr);
        return (v === true || (v !== false && truth(v))) ? t(fr) : f(fr);
      };
    }
    case "for": {
      const x = expr(c, s.iterable);
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
      const defaults = compileDefaults(c, s.params, s.function!);
      const mk = makeFunction(c, s.name.name, s, s.function!, defaults, () => {
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
      const sets = s.names.map((n) => [n.original, assignTo(c, n.local)] as const);
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
        throw new EvalError(`${s.kind} statement not supported`);
      };
  }
}

/** Compile an assignment or augmented assignment (`x op= y` evaluates `x`'s parts once). */
function assignStmt(c: CompilerContext, s: AssignStmt): CompiledStmt {
  const rhs = expr(c, s.rhs);
  if (s.operator === "=") {
    const set = assignTo(c, s.lhs);
    return (fr) => {
      set(fr, rhs(fr));
      return NORMAL;
    };
  }
  const op = s.operator.slice(0, -1);
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
  const lhs = s.lhs.kind === "paren" ? s.lhs.inner : s.lhs;
  if (lhs.kind === "ident") {
    const get = load(c, lhs.binding!, packPos(lhs.line, lhs.col));
    const set = assignTo(c, lhs);
    return (fr) => {
      const old = get(fr);
      set(fr, apply(fr, old, rhs(fr)));
      return NORMAL;
    };
  }
  if (lhs.kind === "index") {
    const x = expr(c, lhs.object), i = expr(c, lhs.index);
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
  if (lhs.kind === "dot") {
    const x = expr(c, lhs.object);
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
  throw new Error(`internal: bad augmented target ${lhs.kind}`);
}
