/**
 * Syntax tree produced by the parser (parser.ts) and annotated in place by the resolver
 * (resolver.ts). Every node carries the position (1-based `line`, `col`) starlark-go reports
 * for it; `kind` tells the node types apart.
 *
 * @module
 */

/** Where a resolved identifier lives (set by the resolver). */
export type Scope =
  | "local"
  | "cell"
  | "free"
  | "global"
  | "predeclared"
  | "universal"
  | "undefined";

/** A source position: 1-based line and column. */
export interface Position {
  /** 1-based line. */
  line: number;
  /** 1-based column (in code points). */
  col: number;
}

/** What the resolver decided an identifier refers to. */
export interface Binding {
  /** Where the variable lives. */
  scope: Scope;
  /** Slot index: local/cell index in the frame, free index, or global index. */
  index: number;
  /** The variable's name. */
  name: string;
  /** Line of the first binding (for "cannot reassign global ... declared at"). */
  line: number;
  /** Column of the first binding. */
  col: number;
}

/** An identifier use or binding occurrence. */
export interface Ident extends Position {
  /** Node kind. */
  kind: "ident";
  /** The identifier's name (as UTF-8 bytes, one char per byte). */
  name: string;
  /** Set by the resolver. */
  binding?: Binding;
}

/** An int, float, string or bytes literal. */
export interface Literal extends Position {
  /** Node kind. */
  kind: "literal";
  /** Which kind of literal token it was. */
  token: "int" | "float" | "string" | "bytes";
  /** Decoded value: number or bigint for ints, number for floats, byte string otherwise. */
  value: string | number | bigint;
}

/** A tuple, parenthesized `(a, b)` or bare `a, b`. */
export interface TupleExpr extends Position {
  /** Node kind. */
  kind: "tuple";
  /** The elements, in order. */
  elements: Expr[];
  /** Whether the tuple was written in parentheses. */
  parenthesized: boolean;
}

/** A list display `[a, b]`. */
export interface ListExpr extends Position {
  /** Node kind. */
  kind: "list";
  /** The elements, in order. */
  elements: Expr[];
}

/** One `key: value` entry of a dict display or dict comprehension. */
export interface DictEntry {
  /** The key expression. */
  key: Expr;
  /** The value expression. */
  value: Expr;
}

/** A dict display `{k: v}`. */
export interface DictExpr extends Position {
  /** Node kind. */
  kind: "dict";
  /** The entries, in order. */
  entries: DictEntry[];
}

/** A parenthesized expression `(x)` that is not a tuple. */
export interface ParenExpr extends Position {
  /** Node kind. */
  kind: "paren";
  /** The expression inside the parentheses. */
  inner: Expr;
}

/** A unary operation: `not x`, `-x`, `+x`, `~x`. */
export interface UnaryExpr extends Position {
  /** Node kind. */
  kind: "unary";
  /** The operator text. */
  operator: string;
  /** The operand. */
  operand: Expr;
}

/** A binary operation `x op y` (including `and`, `or`, `in`, `not in`). */
export interface BinaryExpr extends Position {
  /** Node kind. */
  kind: "binary";
  /** The operator text. */
  operator: string;
  /** Left operand. */
  left: Expr;
  /** Right operand. */
  right: Expr;
}

/** A conditional expression `then if condition else else`. */
export interface ConditionalExpr extends Position {
  /** Node kind. */
  kind: "conditional";
  /** The test. */
  condition: Expr;
  /** Value when the test is true. */
  then: Expr;
  /** Value when the test is false. */
  else: Expr;
}

/** A call `callee(args)`; positioned at the `(`. */
export interface CallExpr extends Position {
  /** Node kind. */
  kind: "call";
  /** The called expression. */
  callee: Expr;
  /** The arguments, in order. */
  args: Arg[];
}

/** An attribute access `object.name`; positioned at the `.`. */
export interface DotExpr extends Position {
  /** Node kind. */
  kind: "dot";
  /** The expression whose attribute is taken. */
  object: Expr;
  /** The attribute name. */
  name: string;
}

/** An index `object[index]`; positioned at the `[`. */
export interface IndexExpr extends Position {
  /** Node kind. */
  kind: "index";
  /** The indexed expression. */
  object: Expr;
  /** The index. */
  index: Expr;
}

/** A slice `object[low:high:step]`; positioned at the `[`. */
export interface SliceExpr extends Position {
  /** Node kind. */
  kind: "slice";
  /** The sliced expression. */
  object: Expr;
  /** Start bound, when written. */
  low?: Expr;
  /** End bound, when written. */
  high?: Expr;
  /** Step, when written. */
  step?: Expr;
}

/** Any expression node. */
export type Expr =
  | Ident
  | Literal
  | TupleExpr
  | ListExpr
  | DictExpr
  | ParenExpr
  | UnaryExpr
  | BinaryExpr
  | ConditionalExpr
  | CallExpr
  | DotExpr
  | IndexExpr
  | SliceExpr
  | LambdaExpr
  | Comprehension;

/** One argument of a call. */
export interface Arg extends Position {
  /** `f(x)`, `f(name=x)`, `f(*x)` or `f(**x)`. */
  kind: "positional" | "named" | "star" | "starstar";
  /** The keyword of a named argument. */
  name?: string;
  /** The argument expression. */
  value: Expr;
}

/** One parameter of a def or lambda. */
export interface Param extends Position {
  /** `a`, `a=1`, `*args`, `**kwargs`, or a bare `*`. */
  kind: "required" | "optional" | "star" | "starstar" | "bare";
  /** The parameter's name (absent for a bare `*`). */
  name?: Ident;
  /** Default value of an optional parameter. */
  defaultValue?: Expr;
  /** Position of "=" of an optional parameter (starlark-go reports its errors there). */
  equals?: Position;
}

/** Resolver-computed facts about a function (def or lambda, or the module's top level). */
export interface FnInfo {
  /** Number of local slots (params first, in order). */
  nlocals: number;
  /** Bindings of all local slots, by index (scope becomes "cell" when captured). */
  locals: Binding[];
  /** Indices of locals that are captured by nested functions (held in cells). */
  cells: number[];
  /** For each free variable: the enclosing function's binding it refers to. */
  freevars: Binding[];
  /** Whether the function has a `*args` parameter. */
  hasVarargs: boolean;
  /** Whether the function has a `**kwargs` parameter. */
  hasKwargs: boolean;
  /** Number of parameters that may be given positionally. */
  numParams: number;
  /** Number of keyword-only parameters. */
  numKwonly: number;
}

/** A lambda expression `lambda params: body`. */
export interface LambdaExpr extends Position {
  /** Node kind. */
  kind: "lambda";
  /** The parameters. */
  params: Param[];
  /** The body expression. */
  body: Expr;
  /** Set by the resolver. */
  function?: FnInfo;
}

/** A `for vars in iterable` clause of a comprehension. */
export interface ForClause extends Position {
  /** Clause kind. */
  kind: "for";
  /** The loop target. */
  vars: Expr;
  /** The iterated expression. */
  iterable: Expr;
}

/** An `if condition` clause of a comprehension. */
export interface IfClause extends Position {
  /** Clause kind. */
  kind: "if";
  /** The filter. */
  condition: Expr;
}

/** A comprehension clause. */
export type Clause = ForClause | IfClause;

/** A list or dict comprehension; positioned at the opening bracket. */
export interface Comprehension extends Position {
  /** Node kind. */
  kind: "comprehension";
  /** Whether it builds a dict (`body` is then a DictEntry). */
  dict: boolean;
  /** The element expression, or the key/value entry of a dict comprehension. */
  body: Expr | DictEntry;
  /** The clauses; the first is always a ForClause. */
  clauses: Clause[];
}

/** An expression statement. */
export interface ExprStmt extends Position {
  /** Node kind. */
  kind: "expr";
  /** The evaluated expression. */
  expr: Expr;
}

/** An assignment `lhs = rhs` or augmented assignment `lhs op= rhs` (positioned at the operator). */
export interface AssignStmt extends Position {
  /** Node kind. */
  kind: "assign";
  /** `=` or an augmented operator such as `+=`. */
  operator: string;
  /** The target. */
  lhs: Expr;
  /** The assigned value. */
  rhs: Expr;
}

/** A def statement. */
export interface DefStmt extends Position {
  /** Node kind. */
  kind: "def";
  /** The function's name. */
  name: Ident;
  /** The parameters. */
  params: Param[];
  /** The body. */
  body: Stmt[];
  /** Set by the resolver. */
  function?: FnInfo;
}

/** An if statement (an `elif` is a nested IfStmt as the sole `else` statement). */
export interface IfStmt extends Position {
  /** Node kind. */
  kind: "if";
  /** The test. */
  condition: Expr;
  /** Statements run when the test is true. */
  then: Stmt[];
  /** Statements run otherwise (empty when there is no else). */
  else: Stmt[];
}

/** A for loop. */
export interface ForStmt extends Position {
  /** Node kind. */
  kind: "for";
  /** The loop target. */
  vars: Expr;
  /** The iterated expression. */
  iterable: Expr;
  /** The body. */
  body: Stmt[];
}

/** A while loop (parsed, then rejected by the resolver: this dialect has none). */
export interface WhileStmt extends Position {
  /** Node kind. */
  kind: "while";
  /** The test. */
  condition: Expr;
  /** The body. */
  body: Stmt[];
}

/** A return statement. */
export interface ReturnStmt extends Position {
  /** Node kind. */
  kind: "return";
  /** The returned expression, if any. */
  result?: Expr;
}

/** `break`, `continue` or `pass`. */
export interface BranchStmt extends Position {
  /** Node kind. */
  kind: "break" | "continue" | "pass";
}

/** One `local = "original"` name of a load statement. */
export interface LoadName {
  /** The name bound in this file. */
  local: Ident;
  /** The name exported by the loaded module. */
  original: string;
}

/** A load statement `load("module", ...)`. */
export interface LoadStmt extends Position {
  /** Node kind. */
  kind: "load";
  /** The module string. */
  module: string;
  /** The loaded names. */
  names: LoadName[];
}

/** Any statement node. */
export type Stmt =
  | ExprStmt
  | AssignStmt
  | DefStmt
  | IfStmt
  | ForStmt
  | WhileStmt
  | ReturnStmt
  | BranchStmt
  | LoadStmt;

/** A parsed file. */
export interface File {
  /** The file name used in positions of errors. */
  filename: string;
  /** Top-level statements. */
  stmts: Stmt[];
  /** Set by the resolver: the global slots' names, by index. */
  globals?: string[];
  /** Set by the resolver: locals of the top level (comprehension temporaries live here). */
  module?: FnInfo;
}
