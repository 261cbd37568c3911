/** Syntax tree produced by the parser and annotated by the resolver. */

/** Where a resolved identifier lives (set by the resolver). */
export type Scope =
  | "local"
  | "cell"
  | "free"
  | "global"
  | "predeclared"
  | "universal"
  | "undefined";

export interface Binding {
  scope: Scope;
  /** Slot index: local/cell index in the frame, free index, or global index. */
  index: number;
  name: string;
  /** Position of the first binding (for "cannot reassign global ... declared at"). */
  line: number;
  col: number;
}

export interface Ident {
  t: "ident";
  name: string;
  line: number;
  col: number;
  b?: Binding;
}

export type Expr =
  | Ident
  | {
    t: "lit";
    v: string | number | bigint;
    kind: "int" | "float" | "string" | "bytes";
    line: number;
    col: number;
  }
  | { t: "tuple"; elems: Expr[]; line: number; col: number; paren: boolean }
  | { t: "list"; elems: Expr[]; line: number; col: number }
  | { t: "dict"; entries: { k: Expr; v: Expr }[]; line: number; col: number }
  | { t: "paren"; x: Expr; line: number; col: number }
  | { t: "unary"; op: string; x: Expr; line: number; col: number }
  | { t: "binary"; op: string; x: Expr; y: Expr; line: number; col: number }
  | { t: "cond"; cond: Expr; then: Expr; else: Expr; line: number; col: number }
  | { t: "call"; fn: Expr; args: Arg[]; line: number; col: number }
  | { t: "dot"; x: Expr; name: string; line: number; col: number }
  | { t: "index"; x: Expr; i: Expr; line: number; col: number }
  | { t: "slice"; x: Expr; lo?: Expr; hi?: Expr; step?: Expr; line: number; col: number }
  | LambdaExpr
  | CompExpr;

export interface Arg {
  kind: "pos" | "named" | "star" | "starstar";
  name?: string;
  v: Expr;
  line: number;
  col: number;
}

export interface Param {
  kind: "req" | "opt" | "star" | "starstar" | "bare";
  name?: Ident;
  dflt?: Expr;
  line: number;
  col: number;
  /** Position of "=" of an optional parameter (starlark-go reports its errors there). */
  eq?: { line: number; col: number };
}

/** Resolver-computed facts about a function (def or lambda). */
export interface FnInfo {
  /** Number of local slots (params first, in order). */
  nlocals: number;
  /** Bindings of all local slots, by index (scope becomes "cell" when captured). */
  locals: Binding[];
  /** Indices of locals that are captured by nested functions (held in cells). */
  cells: number[];
  /** For each free variable: the enclosing function's binding it refers to. */
  freevars: Binding[];
  /** Number of declared parameters (excluding none); see params. */
  hasVarargs: boolean;
  hasKwargs: boolean;
  numParams: number;
  numKwonly: number;
}

export interface LambdaExpr {
  t: "lambda";
  params: Param[];
  body: Expr;
  line: number;
  col: number;
  fn?: FnInfo;
}

export type Clause =
  | { t: "for"; vars: Expr; x: Expr; line: number; col: number }
  | { t: "if"; cond: Expr; line: number; col: number };

export interface CompExpr {
  t: "comp";
  dict: boolean;
  body: Expr | { k: Expr; v: Expr };
  clauses: Clause[];
  line: number;
  col: number;
}

export type Stmt =
  | { t: "expr"; x: Expr; line: number; col: number }
  | { t: "assign"; op: string; lhs: Expr; rhs: Expr; line: number; col: number }
  | DefStmt
  | { t: "if"; cond: Expr; then: Stmt[]; else: Stmt[]; line: number; col: number }
  | { t: "for"; vars: Expr; x: Expr; body: Stmt[]; line: number; col: number }
  | { t: "while"; cond: Expr; body: Stmt[]; line: number; col: number }
  | { t: "return"; x?: Expr; line: number; col: number }
  | { t: "break" | "continue" | "pass"; line: number; col: number }
  | { t: "load"; module: string; names: { to: Ident; from: string }[]; line: number; col: number };

export interface DefStmt {
  t: "def";
  name: Ident;
  params: Param[];
  body: Stmt[];
  line: number;
  col: number;
  fn?: FnInfo;
}

export interface File {
  filename: string;
  stmts: Stmt[];
  /** Set by the resolver: number of global slots and their names. */
  globals?: string[];
  /** Locals of the top-level "function" (comprehension temporaries live here). */
  fn?: FnInfo;
}
