/** Resolver: binds every identifier to a scope/slot, reporting starlark-go's static errors. */
import { spell } from "./spell.ts";
import { StarlarkError } from "../errors.ts";
import type { Binding, CompExpr, Expr, File, FnInfo, Ident, Param, Stmt } from "./ast.ts";

export interface ResolveOptions {
  isPredeclared: (name: string) => boolean;
  isUniversal: (name: string) => boolean;
  /** Allow `load` statements (conformance harness only). */
  allowLoad?: boolean;
}

interface Block {
  parent: Block | null;
  fn: FnInfo | null; // set on a function's own top block
  bindings: Map<string, Binding>;
  comp: boolean;
}

interface Use {
  id: Ident;
  env: Block;
}

const DOESNT = "this Starlark dialect does not ";

/** Resolve `file` in place; returns every error (empty when fine). */
export function resolveFile(file: File, opts: ResolveOptions): StarlarkError[] {
  const errors: StarlarkError[] = [];
  const filename = file.filename;
  const errorf = (at: { line: number; col: number }, msg: string) => {
    errors.push(new StarlarkError("resolve", msg, { filename, line: at.line, col: at.col }));
  };
  const fileBlock: Block = { parent: null, fn: null, bindings: new Map(), comp: false };
  const globals = new Map<string, Binding>();
  const globalNames: string[] = [];
  const predeclared = new Map<string, Binding>();
  const moduleFn: FnInfo = newFnInfo();
  let env = fileBlock;
  // uses per container (function top block or file block)
  const containerUses = new Map<Block, Use[]>([[fileBlock, []]]);
  const pending: Use[] = []; // non-local uses, resolved at the end
  let loops = 0;
  let ifstmts = 0;

  function newFnInfo(): FnInfo {
    return {
      nlocals: 0,
      locals: [],
      cells: [],
      freevars: [],
      hasVarargs: false,
      hasKwargs: false,
      numParams: 0,
      numKwonly: 0,
    };
  }
  function container(): Block {
    let b: Block | null = env;
    while (b !== null && b.fn === null && b !== fileBlock) b = b.parent;
    return b ?? fileBlock;
  }
  function containerFn(): FnInfo | null {
    const c = container();
    return c === fileBlock ? null : c.fn;
  }

  function bindLocal(id: Ident): boolean {
    const prev = env.bindings.get(id.name);
    if (prev) {
      id.b = prev;
      return true;
    }
    const fn = containerFn() ?? moduleFn;
    const b: Binding = {
      scope: "local",
      index: fn.nlocals++,
      name: id.name,
      line: id.line,
      col: id.col,
    };
    fn.locals.push(b);
    env.bindings.set(id.name, b);
    id.b = b;
    return false;
  }

  function bind(id: Ident): boolean {
    if (env === fileBlock) {
      let b = fileBlock.bindings.get(id.name);
      let ok = b !== undefined;
      if (!b) {
        b = globals.get(id.name);
        ok = b !== undefined;
        if (!b) {
          b = {
            scope: "global",
            index: globalNames.length,
            name: id.name,
            line: id.line,
            col: id.col,
          };
          globals.set(id.name, b);
          globalNames.push(id.name);
        }
      }
      if (ok) {
        errorf(
          id,
          `cannot reassign ${b.scope} ${id.name} declared at ${filename}:${b.line}:${b.col}`,
        );
      }
      id.b = b;
      return ok;
    }
    return bindLocal(id);
  }

  function use(id: Ident): void {
    containerUses.get(container())!.push({ id, env });
  }

  function assign(lhs: Expr, aug: boolean): void {
    switch (lhs.t) {
      case "ident":
        bind(lhs);
        return;
      case "index":
        expr(lhs.x);
        expr(lhs.i);
        return;
      case "dot":
        expr(lhs.x);
        return;
      case "tuple":
      case "list":
        if (aug) errorf(lhs, `can't use ${lhs.t} expression in augmented assignment`);
        for (const e of lhs.elems) assign(e, aug);
        return;
      case "paren":
        assign(lhs.x, aug);
        return;
      default: {
        const names: Record<string, string> = {
          lit: "literal",
          unary: "unaryexpr",
          binary: "binaryexpr",
          cond: "condexpr",
          call: "callexpr",
          slice: "sliceexpr",
          lambda: "lambdaexpr",
          comp: "comprehension",
          dict: "dictexpr",
        };
        errorf(startOf(lhs), `can't assign to ${names[lhs.t] ?? lhs.t}`);
      }
    }
  }

  function stmts(list: Stmt[]): void {
    for (const s of list) stmt(s);
  }

  function stmt(s: Stmt): void {
    switch (s.t) {
      case "expr":
        expr(s.x);
        return;
      case "break":
      case "continue":
        if (loops === 0) errorf(s, `${s.t} not in a loop`);
        return;
      case "pass":
        return;
      case "if":
        if (containerFn() === null) errorf(s, "if statement not within a function");
        expr(s.cond);
        ifstmts++;
        stmts(s.then);
        stmts(s.else);
        ifstmts--;
        return;
      case "assign":
        expr(s.rhs);
        assign(s.lhs, s.op !== "=");
        return;
      case "def":
        bind(s.name);
        s.fn = fnInfoFor(s.params, () => stmts(s.body));
        return;
      case "for":
        if (containerFn() === null) errorf(s, "for loop not within a function");
        expr(s.x);
        assign(s.vars, false);
        loops++;
        stmts(s.body);
        loops--;
        return;
      case "while":
        errorf(s, DOESNT + "support while loops");
        if (containerFn() === null) errorf(s, "while loop not within a function");
        expr(s.cond);
        loops++;
        stmts(s.body);
        loops--;
        return;
      case "return":
        if (containerFn() === null) errorf(s, "return statement not within a function");
        if (s.x) expr(s.x);
        return;
      case "load":
        if (!opts.allowLoad) {
          errorf(s, "load statement not supported");
          return;
        }
        if (containerFn() !== null) errorf(s, "load statement within a function");
        else if (loops > 0) errorf(s, "load statement within a loop");
        else if (ifstmts > 0) errorf(s, "load statement within a conditional");
        for (const n of s.names) {
          if (n.from === "") errorf(n.to, "load: empty identifier");
          else if (n.from[0] === "_") {
            errorf(n.to, `load: names with leading underscores are not exported: ${n.from}`);
          }
          // load binds file-locally (a module-frame local) in starlark-go
          if (bindLocal(n.to)) errorf(n.to, `cannot reassign top-level ${n.to.name}`);
        }
        return;
    }
  }

  function fnInfoFor(params: Param[], body: () => void): FnInfo {
    for (const p of params) if (p.dflt) expr(p.dflt);
    const fn = newFnInfo();
    const b: Block = { parent: env, fn, bindings: new Map(), comp: false };
    // a nested def starts outside any loop: `break` there is "break not in a loop" (newer
    // starlark-go; the 2021 snapshot let it resolve and then silently return)
    const saved = env, savedLoops = loops;
    loops = 0;
    env = b;
    containerUses.set(b, []);
    let seenOptional = false;
    let star: Param | undefined;
    let starStar: Param | undefined;
    for (const p of params) {
      switch (p.kind) {
        case "req":
          if (starStar) {
            errorf(p.name!, `required parameter may not follow **${starStar.name!.name}`);
          } else if (star) fn.numKwonly++;
          else if (seenOptional) errorf(p.name!, "required parameter may not follow optional");
          if (bind(p.name!)) errorf(p.name!, `duplicate parameter: ${p.name!.name}`);
          break;
        case "opt":
          if (starStar) {
            errorf(p.eq ?? p, `optional parameter may not follow **${starStar.name!.name}`);
          } else if (star) fn.numKwonly++;
          if (bind(p.name!)) errorf(p.eq ?? p, `duplicate parameter: ${p.name!.name}`);
          seenOptional = true;
          break;
        case "star":
        case "bare":
          if (starStar) errorf(p, `* parameter may not follow **${starStar.name!.name}`);
          else if (star) errorf(p, "multiple * parameters not allowed");
          else star = p;
          break;
        case "starstar":
          if (starStar) errorf(p, "multiple ** parameters not allowed");
          starStar = p;
          break;
      }
    }
    fn.numParams = fn.nlocals - fn.numKwonly;
    if (star) {
      if (star.kind === "star") {
        if (bind(star.name!)) errorf(star.name!, `duplicate parameter: ${star.name!.name}`);
        fn.hasVarargs = true;
      } else if (fn.numKwonly === 0) {
        errorf(star, "bare * must be followed by keyword-only parameters");
      }
    }
    if (starStar) {
      if (bind(starStar.name!)) {
        errorf(starStar.name!, `duplicate parameter: ${starStar.name!.name}`);
      }
      fn.hasKwargs = true;
    }
    body();
    // resolve uses of this function's own locals now; the rest at the end of the file
    for (const u of containerUses.get(b)!) {
      const l = lookupLocal(u);
      if (l && (l.scope === "local" || l.scope === "cell")) u.id.b = l;
      else pending.push(u);
    }
    env = saved;
    loops = savedLoops;
    return fn;
  }

  function lookupLocal(u: Use): Binding | undefined {
    for (let e: Block | null = u.env; e !== null; e = e.parent) {
      const b = e.bindings.get(u.id.name);
      if (b) return b;
      if (e.fn !== null) break;
    }
    return undefined;
  }

  function comprehension(e: CompExpr): void {
    const first = e.clauses[0] as { vars: Expr; x: Expr };
    expr(first.x);
    const saved = env;
    env = { parent: env, fn: null, bindings: new Map(), comp: true };
    assign(first.vars, false);
    for (const c of e.clauses.slice(1)) {
      if (c.t === "if") expr(c.cond);
      else {
        assign(c.vars, false);
        expr(c.x);
      }
    }
    if (e.dict) {
      const b = e.body as { k: Expr; v: Expr };
      expr(b.k);
      expr(b.v);
    } else expr(e.body as Expr);
    env = saved;
  }

  function expr(e: Expr): void {
    switch (e.t) {
      case "ident":
        use(e);
        return;
      case "lit":
        return;
      case "list":
      case "tuple":
        for (const x of e.elems) expr(x);
        return;
      case "dict":
        for (const en of e.entries) {
          expr(en.k);
          expr(en.v);
        }
        return;
      case "paren":
      case "unary":
        expr(e.x);
        return;
      case "binary":
        expr(e.x);
        expr(e.y);
        return;
      case "cond":
        expr(e.cond);
        expr(e.then);
        expr(e.else);
        return;
      case "index":
        expr(e.x);
        expr(e.i);
        return;
      case "slice":
        expr(e.x);
        if (e.lo) expr(e.lo);
        if (e.hi) expr(e.hi);
        if (e.step) expr(e.step);
        return;
      case "dot":
        expr(e.x);
        return;
      case "comp":
        comprehension(e);
        return;
      case "lambda":
        e.fn = fnInfoFor(e.params, () => {
          containerUses.get(env)!; // body uses are recorded against this function block
          expr(e.body);
        });
        return;
      case "call": {
        expr(e.fn);
        let seenVarargs = false, seenKwargs = false;
        const seen = new Set<string>();
        for (const a of e.args) {
          if (a.kind === "starstar") {
            if (seenKwargs) errorf(a, "multiple **kwargs not allowed");
            seenKwargs = true;
          } else if (a.kind === "star") {
            if (seenKwargs) errorf(a, "*args may not follow **kwargs");
            else if (seenVarargs) errorf(a, "multiple *args not allowed");
            seenVarargs = true;
          } else if (a.kind === "named") {
            if (seenKwargs) errorf(a, "keyword argument may not follow **kwargs");
            else if (seenVarargs) errorf(a, "keyword argument may not follow *args");
            if (seen.has(a.name!)) errorf(a, `keyword argument ${a.name} repeated`);
            seen.add(a.name!);
          } else {
            if (seenVarargs) errorf(a, "positional argument may not follow *args");
            else if (seenKwargs) errorf(a, "positional argument may not follow **kwargs");
            else if (seen.size > 0) errorf(a, "positional argument may not follow named");
          }
          expr(a.v);
        }
        return;
      }
    }
  }

  function lookupLexical(u: Use, e: Block): Binding {
    if (e === fileBlock) return useToplevel(u);
    let b = e.bindings.get(u.id.name);
    if (!b) {
      b = lookupLexical(u, e.parent!);
      if (e.fn !== null && (b.scope === "local" || b.scope === "free" || b.scope === "cell")) {
        if (b.scope === "local") b.scope = "cell";
        const index = e.fn.freevars.length;
        e.fn.freevars.push(b);
        b = { scope: "free", index, name: b.name, line: b.line, col: b.col };
      }
      e.bindings.set(u.id.name, b);
    }
    return b;
  }

  function useToplevel(u: Use): Binding {
    const name = u.id.name;
    let b = fileBlock.bindings.get(name) ?? globals.get(name) ?? predeclared.get(name);
    if (b) return b;
    if (opts.isPredeclared(name)) {
      b = { scope: "predeclared", index: 0, name, line: 0, col: 0 };
    } else if (opts.isUniversal(name)) {
      b = { scope: "universal", index: 0, name, line: 0, col: 0 };
    } else {
      const hint = spellcheck(name, u.env);
      errorf(u.id, `undefined: ${name}${hint ? ` (did you mean ${hint}?)` : ""}`);
      return { scope: "undefined", index: 0, name, line: 0, col: 0 };
    }
    predeclared.set(name, b);
    return b;
  }

  function spellcheck(name: string, from: Block): string | undefined {
    const names: string[] = [];
    for (let b: Block | null = from; b !== null; b = b.parent) names.push(...b.bindings.keys());
    names.push(...globals.keys());
    return spell(name, names.sort());
  }

  stmts(file.stmts);
  // file-block uses, then deferred function uses
  // inner blocks' non-local uses first, then the module block's (as starlark-go does)
  for (const u of pending) u.id.b = lookupLexical(u, u.env);
  for (const u of containerUses.get(fileBlock)!) u.id.b = lookupLexical(u, u.env);
  // record cells now that all free variables are known
  markCells(file.stmts);
  file.globals = globalNames;
  file.fn = moduleFn;
  return errors;
}

function markCells(stmts: Stmt[]): void {
  // Cells are discovered lazily (a local becomes a cell when an inner function captures it);
  // the compiler reads binding scopes directly, so nothing to do here beyond a hook.
  void stmts;
}

function startOf(e: Expr): { line: number; col: number } {
  switch (e.t) {
    case "binary":
    case "index":
    case "slice":
    case "call":
    case "dot":
      return startOf(e.t === "call" ? e.fn : e.x);
    case "cond":
      return startOf(e.then);
    default:
      return e;
  }
}
