/**
 * Resolver: binds every identifier to a scope and slot, reporting starlark-go's static errors
 * (resolve/resolve.go). {@linkcode resolveFile} is the entry point; the {@linkcode Resolver}
 * class walks the tree once, recording each use with the block it occurs in, and resolves the
 * uses that are not a function's own locals at the end (when every global is known).
 *
 * @module
 */
import { spell } from "./spell.ts";
import { StarlarkError } from "../errors.ts";
import type {
  Arg,
  Binding,
  Comprehension,
  DefStmt,
  Expr,
  File,
  FnInfo,
  Ident,
  LoadStmt,
  Param,
  Position,
  Stmt,
} from "./ast.ts";

/** What the resolver needs to know about the environment. */
export interface ResolveOptions {
  /** Whether `name` is predeclared by the host (looked up at run time). */
  isPredeclared: (name: string) => boolean;
  /** Whether `name` is a universal builtin. */
  isUniversal: (name: string) => boolean;
  /** Allow `load` statements (conformance harness only). */
  allowLoad?: boolean;
}

/** A lexical block: the file, a function body, or a comprehension. */
interface Block {
  parent: Block | null;
  /** Set on a function's own top block. */
  function: FnInfo | null;
  bindings: Map<string, Binding>;
}

/** An identifier use and the block it occurs in. */
interface Use {
  id: Ident;
  block: Block;
}

const DOESNT = "this Starlark dialect does not ";

/** How starlark-go names a node that cannot be assigned to. */
const UNASSIGNABLE: Readonly<Record<string, string>> = {
  literal: "literal",
  unary: "unaryexpr",
  binary: "binaryexpr",
  conditional: "condexpr",
  call: "callexpr",
  slice: "sliceexpr",
  lambda: "lambdaexpr",
  comprehension: "comprehension",
  dict: "dictexpr",
};

/** Resolve `file` in place; returns every error (empty when fine). */
export function resolveFile(file: File, opts: ResolveOptions): StarlarkError[] {
  return new Resolver(file.filename, opts).resolve(file);
}

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

/** The leftmost position of an expression (starlark-go's `Expr.Span` start). */
function startOf(e: Expr): Position {
  switch (e.kind) {
    case "binary":
      return startOf(e.left);
    case "index":
    case "slice":
    case "dot":
      return startOf(e.object);
    case "call":
      return startOf(e.callee);
    case "conditional":
      return startOf(e.then);
    default:
      return e;
  }
}

/** Resolver state for one file. */
class Resolver {
  private readonly filename: string;
  private readonly opts: ResolveOptions;
  private readonly errors: StarlarkError[] = [];
  private readonly fileBlock: Block = { parent: null, function: null, bindings: new Map() };
  /** Global bindings, by name; `globalNames` lists them by slot. */
  private readonly globals = new Map<string, Binding>();
  private readonly globalNames: string[] = [];
  /** Predeclared and universal names seen so far. */
  private readonly predeclared = new Map<string, Binding>();
  /** Locals of the top level (load bindings, comprehension variables). */
  private readonly moduleInfo: FnInfo = newFnInfo();
  /** The current block. */
  private block: Block = this.fileBlock;
  /** Uses per container (function top block or file block). */
  private readonly containerUses = new Map<Block, Use[]>([[this.fileBlock, []]]);
  /** Non-local uses inside functions, resolved at the end. */
  private readonly pending: Use[] = [];
  /** Depth of enclosing loops (in the current function). */
  private loops = 0;
  /** Depth of enclosing if statements. */
  private ifStmts = 0;

  /** A resolver for a file named `filename`. */
  constructor(filename: string, opts: ResolveOptions) {
    this.filename = filename;
    this.opts = opts;
  }

  /** Resolve `file` in place; returns every error (empty when fine). */
  resolve(file: File): StarlarkError[] {
    this.stmts(file.stmts);
    // inner blocks' non-local uses first, then the module block's (as starlark-go does)
    for (const u of this.pending) u.id.binding = this.lookupLexical(u, u.block);
    for (const u of this.containerUses.get(this.fileBlock)!) {
      u.id.binding = this.lookupLexical(u, u.block);
    }
    // cells need no separate pass: a local's scope becomes "cell" when a nested function
    // captures it, and the compiler reads binding scopes directly
    file.globals = this.globalNames;
    file.module = this.moduleInfo;
    return this.errors;
  }

  /** Record an error at `at` (resolution goes on, collecting every error). */
  private errorAt(at: Position, message: string): void {
    this.errors.push(
      new StarlarkError("resolve", message, {
        filename: this.filename,
        line: at.line,
        col: at.col,
      }),
    );
  }

  // --- blocks and bindings ---

  /** The innermost function top block (or the file block) enclosing the current block. */
  private container(): Block {
    let b: Block | null = this.block;
    while (b !== null && b.function === null && b !== this.fileBlock) b = b.parent;
    return b ?? this.fileBlock;
  }

  /** The enclosing function's facts, or null at top level. */
  private containerFunction(): FnInfo | null {
    const c = this.container();
    return c === this.fileBlock ? null : c.function;
  }

  /** Bind `id` in the current block as a local; returns whether it was already bound. */
  private bindLocal(id: Ident): boolean {
    const previous = this.block.bindings.get(id.name);
    if (previous) {
      id.binding = previous;
      return true;
    }
    const fn = this.containerFunction() ?? this.moduleInfo;
    const binding: Binding = {
      scope: "local",
      index: fn.nlocals++,
      name: id.name,
      line: id.line,
      col: id.col,
    };
    fn.locals.push(binding);
    this.block.bindings.set(id.name, binding);
    id.binding = binding;
    return false;
  }

  /** Bind `id` (a global at top level); returns whether it was already bound. */
  private bind(id: Ident): boolean {
    if (this.block !== this.fileBlock) return this.bindLocal(id);
    let binding = this.fileBlock.bindings.get(id.name) ?? this.globals.get(id.name);
    const rebound = binding !== undefined;
    if (binding === undefined) {
      binding = {
        scope: "global",
        index: this.globalNames.length,
        name: id.name,
        line: id.line,
        col: id.col,
      };
      this.globals.set(id.name, binding);
      this.globalNames.push(id.name);
    } else {
      this.errorAt(
        id,
        `cannot reassign ${binding.scope} ${id.name} declared at ${this.filename}:${binding.line}:${binding.col}`,
      );
    }
    id.binding = binding;
    return rebound;
  }

  /** Record a use of `id`, resolved later. */
  private use(id: Ident): void {
    this.containerUses.get(this.container())!.push({ id, block: this.block });
  }

  // --- statements ---

  /** Resolve statements in order. */
  private stmts(list: Stmt[]): void {
    for (const s of list) this.stmt(s);
  }

  /** Resolve one statement, checking where it may appear. */
  private stmt(s: Stmt): void {
    switch (s.kind) {
      case "expr":
        this.expr(s.expr);
        return;
      case "break":
      case "continue":
        if (this.loops === 0) this.errorAt(s, `${s.kind} not in a loop`);
        return;
      case "pass":
        return;
      case "if":
        if (this.containerFunction() === null) {
          this.errorAt(s, "if statement not within a function");
        }
        this.expr(s.condition);
        this.ifStmts++;
        this.stmts(s.then);
        this.stmts(s.else);
        this.ifStmts--;
        return;
      case "assign":
        this.expr(s.rhs);
        this.assign(s.lhs, s.operator !== "=");
        return;
      case "def":
        this.def(s);
        return;
      case "for":
        if (this.containerFunction() === null) this.errorAt(s, "for loop not within a function");
        this.expr(s.iterable);
        this.assign(s.vars, false);
        this.loops++;
        this.stmts(s.body);
        this.loops--;
        return;
      case "while":
        this.errorAt(s, DOESNT + "support while loops");
        if (this.containerFunction() === null) {
          this.errorAt(s, "while loop not within a function");
        }
        this.expr(s.condition);
        this.loops++;
        this.stmts(s.body);
        this.loops--;
        return;
      case "return":
        if (this.containerFunction() === null) {
          this.errorAt(s, "return statement not within a function");
        }
        if (s.result) this.expr(s.result);
        return;
      case "load":
        this.load(s);
        return;
    }
  }

  /** A def binds its name, then resolves as a function. */
  private def(s: DefStmt): void {
    this.bind(s.name);
    s.function = this.function(s.params, () => this.stmts(s.body));
  }

  /** A load statement (when allowed): top level only, binding file-local names. */
  private load(s: LoadStmt): void {
    if (!this.opts.allowLoad) {
      this.errorAt(s, "load statement not supported");
      return;
    }
    if (this.containerFunction() !== null) this.errorAt(s, "load statement within a function");
    else if (this.loops > 0) this.errorAt(s, "load statement within a loop");
    else if (this.ifStmts > 0) this.errorAt(s, "load statement within a conditional");
    for (const n of s.names) {
      if (n.original === "") this.errorAt(n.local, "load: empty identifier");
      else if (n.original[0] === "_") {
        this.errorAt(
          n.local,
          `load: names with leading underscores are not exported: ${n.original}`,
        );
      }
      // load binds file-locally (a module-frame local) in starlark-go
      if (this.bindLocal(n.local)) {
        this.errorAt(n.local, `cannot reassign top-level ${n.local.name}`);
      }
    }
  }

  /** An assignment target (`aug`: of an augmented assignment). */
  private assign(lhs: Expr, aug: boolean): void {
    switch (lhs.kind) {
      case "ident":
        this.bind(lhs);
        return;
      case "index":
        this.expr(lhs.object);
        this.expr(lhs.index);
        return;
      case "dot":
        this.expr(lhs.object);
        return;
      case "tuple":
      case "list":
        if (aug) this.errorAt(lhs, `can't use ${lhs.kind} expression in augmented assignment`);
        for (const e of lhs.elements) this.assign(e, aug);
        return;
      case "paren":
        this.assign(lhs.inner, aug);
        return;
      default:
        this.errorAt(startOf(lhs), `can't assign to ${UNASSIGNABLE[lhs.kind] ?? lhs.kind}`);
    }
  }

  // --- functions ---

  /**
   * A def or lambda: its defaults in the enclosing block, then its parameters and `body` in a
   * new function block. Returns the function's facts.
   */
  private function(params: Param[], body: () => void): FnInfo {
    for (const p of params) if (p.defaultValue) this.expr(p.defaultValue);
    const fn = newFnInfo();
    const block: Block = { parent: this.block, function: fn, bindings: new Map() };
    // a nested def starts outside any loop: `break` there is "break not in a loop" (newer
    // starlark-go; the 2021 snapshot let it resolve and then silently return)
    const savedBlock = this.block, savedLoops = this.loops;
    this.loops = 0;
    this.block = block;
    this.containerUses.set(block, []);
    this.params(params, fn);
    body();
    // resolve uses of this function's own locals now; the rest at the end of the file
    for (const u of this.containerUses.get(block)!) {
      const local = this.lookupLocal(u);
      if (local && (local.scope === "local" || local.scope === "cell")) u.id.binding = local;
      else this.pending.push(u);
    }
    this.block = savedBlock;
    this.loops = savedLoops;
    return fn;
  }

  /** Bind the parameters in order (required/optional, then *args, then **kwargs). */
  private params(params: Param[], fn: FnInfo): void {
    let seenOptional = false;
    let star: Param | undefined;
    let starStar: Param | undefined;
    for (const p of params) {
      switch (p.kind) {
        case "required":
          if (starStar) {
            this.errorAt(p.name!, `required parameter may not follow **${starStar.name!.name}`);
          } else if (star) fn.numKwonly++;
          else if (seenOptional) {
            this.errorAt(p.name!, "required parameter may not follow optional");
          }
          if (this.bind(p.name!)) this.errorAt(p.name!, `duplicate parameter: ${p.name!.name}`);
          break;
        case "optional":
          if (starStar) {
            this.errorAt(
              p.equals ?? p,
              `optional parameter may not follow **${starStar.name!.name}`,
            );
          } else if (star) fn.numKwonly++;
          if (this.bind(p.name!)) {
            this.errorAt(p.equals ?? p, `duplicate parameter: ${p.name!.name}`);
          }
          seenOptional = true;
          break;
        case "star":
        case "bare":
          if (starStar) this.errorAt(p, `* parameter may not follow **${starStar.name!.name}`);
          else if (star) this.errorAt(p, "multiple * parameters not allowed");
          else star = p;
          break;
        case "starstar":
          if (starStar) this.errorAt(p, "multiple ** parameters not allowed");
          starStar = p;
          break;
      }
    }
    fn.numParams = fn.nlocals - fn.numKwonly;
    if (star) {
      if (star.kind === "star") {
        if (this.bind(star.name!)) {
          this.errorAt(star.name!, `duplicate parameter: ${star.name!.name}`);
        }
        fn.hasVarargs = true;
      } else if (fn.numKwonly === 0) {
        this.errorAt(star, "bare * must be followed by keyword-only parameters");
      }
    }
    if (starStar) {
      if (this.bind(starStar.name!)) {
        this.errorAt(starStar.name!, `duplicate parameter: ${starStar.name!.name}`);
      }
      fn.hasKwargs = true;
    }
  }

  // --- expressions ---

  /** Resolve an expression: record its uses, check its calls, resolve nested functions. */
  private expr(e: Expr): void {
    switch (e.kind) {
      case "ident":
        this.use(e);
        return;
      case "literal":
        return;
      case "list":
      case "tuple":
        for (const x of e.elements) this.expr(x);
        return;
      case "dict":
        for (const entry of e.entries) {
          this.expr(entry.key);
          this.expr(entry.value);
        }
        return;
      case "paren":
        this.expr(e.inner);
        return;
      case "unary":
        this.expr(e.operand);
        return;
      case "binary":
        this.expr(e.left);
        this.expr(e.right);
        return;
      case "conditional":
        this.expr(e.condition);
        this.expr(e.then);
        this.expr(e.else);
        return;
      case "index":
        this.expr(e.object);
        this.expr(e.index);
        return;
      case "slice":
        this.expr(e.object);
        if (e.low) this.expr(e.low);
        if (e.high) this.expr(e.high);
        if (e.step) this.expr(e.step);
        return;
      case "dot":
        this.expr(e.object);
        return;
      case "comprehension":
        this.comprehension(e);
        return;
      case "lambda":
        e.function = this.function(e.params, () => this.expr(e.body));
        return;
      case "call":
        this.expr(e.callee);
        this.args(e.args);
        return;
    }
  }

  /** Call arguments: their order rules, then their expressions. */
  private args(args: Arg[]): void {
    let seenVarargs = false, seenKwargs = false;
    const seen = new Set<string>();
    for (const a of args) {
      if (a.kind === "starstar") {
        if (seenKwargs) this.errorAt(a, "multiple **kwargs not allowed");
        seenKwargs = true;
      } else if (a.kind === "star") {
        if (seenKwargs) this.errorAt(a, "*args may not follow **kwargs");
        else if (seenVarargs) this.errorAt(a, "multiple *args not allowed");
        seenVarargs = true;
      } else if (a.kind === "named") {
        if (seenKwargs) this.errorAt(a, "keyword argument may not follow **kwargs");
        else if (seenVarargs) this.errorAt(a, "keyword argument may not follow *args");
        if (seen.has(a.name!)) this.errorAt(a, `keyword argument ${a.name} repeated`);
        seen.add(a.name!);
      } else {
        if (seenVarargs) this.errorAt(a, "positional argument may not follow *args");
        else if (seenKwargs) this.errorAt(a, "positional argument may not follow **kwargs");
        else if (seen.size > 0) this.errorAt(a, "positional argument may not follow named");
      }
      this.expr(a.value);
    }
  }

  /**
   * A comprehension: the first iterable in the enclosing block, everything else in a new
   * block holding the loop variables.
   */
  private comprehension(e: Comprehension): void {
    const first = e.clauses[0] as { vars: Expr; iterable: Expr };
    this.expr(first.iterable);
    const saved = this.block;
    this.block = { parent: this.block, function: null, bindings: new Map() };
    this.assign(first.vars, false);
    for (const c of e.clauses.slice(1)) {
      if (c.kind === "if") this.expr(c.condition);
      else {
        this.assign(c.vars, false);
        this.expr(c.iterable);
      }
    }
    if (e.dict) {
      const entry = e.body as { key: Expr; value: Expr };
      this.expr(entry.key);
      this.expr(entry.value);
    } else this.expr(e.body as Expr);
    this.block = saved;
  }

  // --- lookups ---

  /** A use's binding within its own function (or undefined). */
  private lookupLocal(u: Use): Binding | undefined {
    for (let b: Block | null = u.block; b !== null; b = b.parent) {
      const binding = b.bindings.get(u.id.name);
      if (binding) return binding;
      if (b.function !== null) break;
    }
    return undefined;
  }

  /**
   * A use's binding seen from `block`, searching outwards; a local of an enclosing function
   * becomes a cell there and a free variable of each function in between.
   */
  private lookupLexical(u: Use, block: Block): Binding {
    if (block === this.fileBlock) return this.useToplevel(u);
    let binding = block.bindings.get(u.id.name);
    if (!binding) {
      binding = this.lookupLexical(u, block.parent!);
      const fn = block.function;
      if (
        fn !== null &&
        (binding.scope === "local" || binding.scope === "free" || binding.scope === "cell")
      ) {
        if (binding.scope === "local") binding.scope = "cell";
        const index = fn.freevars.length;
        fn.freevars.push(binding);
        binding = {
          scope: "free",
          index,
          name: binding.name,
          line: binding.line,
          col: binding.col,
        };
      }
      block.bindings.set(u.id.name, binding);
    }
    return binding;
  }

  /** A use not bound in any function: global, predeclared, universal, or undefined. */
  private useToplevel(u: Use): Binding {
    const name = u.id.name;
    let binding = this.fileBlock.bindings.get(name) ?? this.globals.get(name) ??
      this.predeclared.get(name);
    if (binding) return binding;
    if (this.opts.isPredeclared(name)) {
      binding = { scope: "predeclared", index: 0, name, line: 0, col: 0 };
    } else if (this.opts.isUniversal(name)) {
      binding = { scope: "universal", index: 0, name, line: 0, col: 0 };
    } else {
      const hint = this.spellcheck(name, u.block);
      this.errorAt(u.id, `undefined: ${name}${hint ? ` (did you mean ${hint}?)` : ""}`);
      return { scope: "undefined", index: 0, name, line: 0, col: 0 };
    }
    this.predeclared.set(name, binding);
    return binding;
  }

  /** The closest bound name to `name` visible from `from`, for "did you mean". */
  private spellcheck(name: string, from: Block): string | undefined {
    const names: string[] = [];
    for (let b: Block | null = from; b !== null; b = b.parent) names.push(...b.bindings.keys());
    names.push(...this.globals.keys());
    return spell(name, names.sort());
  }
}
