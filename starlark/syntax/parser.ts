/**
 * Recursive-descent parser following starlark-go's grammar (parse.go) and error texts.
 * {@linkcode parseFile} is the entry point; the {@linkcode Parser} class holds the token
 * stream, one method per grammar rule.
 *
 * @module
 */
import { StarlarkError } from "../errors.ts";
import type {
  Arg,
  Clause,
  Comprehension,
  DictEntry,
  Expr,
  File,
  Ident,
  IfStmt,
  LoadName,
  LoadStmt,
  Param,
  Position,
  Stmt,
} from "./ast.ts";
import { scan, type Token, tokenName } from "./scanner.ts";

const PRECEDENCE: Record<string, number> = {
  "or": 0,
  "and": 1,
  "not": 2,
  "==": 3,
  "!=": 3,
  "<": 3,
  ">": 3,
  "<=": 3,
  ">=": 3,
  "in": 3,
  "not in": 3,
  "|": 4,
  "^": 5,
  "&": 6,
  "<<": 7,
  ">>": 7,
  "-": 8,
  "+": 8,
  "*": 9,
  "%": 9,
  "/": 9,
  "//": 9,
};
const NLEVELS = 10;
const AUGMENTED = new Set([
  "=",
  "+=",
  "-=",
  "*=",
  "/=",
  "//=",
  "%=",
  "&=",
  "|=",
  "^=",
  "<<=",
  ">>=",
]);
const TERMINATORS = new Set(["eof", "newline", "=", "}", "]", ")", ";"]);

/** A token kind as starlark-go prints it in "got X, want Y". */
function quoted(kind: string): string {
  // starlark-go prints punctuation tokens quoted, names/keywords bare
  return /^[a-z]/.test(kind) || kind === "not in" ? tokenName(kind) : `'${kind}'`;
}

/** Parse a whole file; throws StarlarkError (kind "syntax") at the first error. */
export function parseFile(src: string, filename: string): File {
  return new Parser(src, filename).parseFile();
}

/** Parser state: the scanned tokens and the current one. */
class Parser {
  private readonly filename: string;
  private readonly tokens: Token[];
  /** Index of the current token in `tokens`. */
  private index = 0;
  /** The current (next unconsumed) token. */
  private token: Token;

  /** Scan `src` (named `filename` in errors); throws if the first token is a scanner error. */
  constructor(src: string, filename: string) {
    this.filename = filename;
    this.tokens = scan(src, filename);
    this.token = this.tokens[0];
    if (this.kind() === "error") throw this.token.error!;
  }

  /** file = {statement | NEWLINE} EOF */
  parseFile(): File {
    const stmts = this.parseStmts("eof");
    return { filename: this.filename, stmts };
  }

  /**
   * The current token's kind. (A method, not a property read, so that TypeScript does not
   * narrow it across calls that advance the token stream.)
   */
  private kind(): string {
    return this.token.kind;
  }

  /** Consume the current token and return it; a scanner error is raised on reaching it. */
  private next(): Token {
    const consumed = this.token;
    if (this.index < this.tokens.length - 1) this.index++;
    this.token = this.tokens[this.index];
    if (this.kind() === "error") throw this.token.error!;
    return consumed;
  }

  /**
   * Where parse errors are reported: starlark-go reports them at the scanner position *after*
   * the current token, which for a newline token is the start of the next line.
   */
  private here(): Position {
    return { line: this.token.endLine, col: this.token.endCol };
  }

  /** Throw a syntax error at `at` (by default just after the current token). */
  private fail(message: string, at: Position = this.here()): never {
    throw new StarlarkError("syntax", message, {
      filename: this.filename,
      line: at.line,
      col: at.col,
    });
  }

  /** Consume a token of the given kind, or fail with "got X, want Y". */
  private consume(kind: string): Token {
    if (this.kind() !== kind) {
      this.fail(`got ${quoted(this.kind())}, want ${quoted(kind)}`);
    }
    return this.next();
  }

  /** An identifier, or "not an identifier". */
  private parseIdent(): Ident {
    if (this.kind() !== "ident") this.fail("not an identifier");
    const t = this.next();
    return { kind: "ident", name: t.value as string, line: t.line, col: t.col };
  }

  /** Statements up to `until`; stray NEWLINE tokens are skipped at file level only. */
  private parseStmts(until: string): Stmt[] {
    const out: Stmt[] = [];
    while (this.kind() !== until && this.kind() !== "eof") {
      if (this.kind() === "newline" && until === "eof") {
        this.next();
        continue;
      }
      this.parseStmt(out);
    }
    return out;
  }

  /** statement = def | if | for | while | simple_stmt */
  private parseStmt(out: Stmt[]): void {
    const t = this.token;
    switch (t.kind) {
      case "def": {
        this.next();
        const name = this.parseIdent();
        this.consume("(");
        const params = this.parseParams();
        this.consume(")");
        this.consume(":");
        const body = this.parseSuite();
        out.push({ kind: "def", name, params, body, line: t.line, col: t.col });
        return;
      }
      case "if":
        out.push(this.parseIf());
        return;
      case "for": {
        this.next();
        const vars = this.parseForLoopVariables();
        this.consume("in");
        const iterable = this.parseExpr(false);
        this.consume(":");
        const body = this.parseSuite();
        out.push({ kind: "for", vars, iterable, body, line: t.line, col: t.col });
        return;
      }
      case "while": {
        this.next();
        const condition = this.parseTest();
        this.consume(":");
        const body = this.parseSuite();
        out.push({ kind: "while", condition, body, line: t.line, col: t.col });
        return;
      }
      default:
        this.parseSimpleStmt(out);
    }
  }

  /** if_stmt = ('if' | 'elif') test ':' suite ['elif' ... | 'else' ':' suite] */
  private parseIf(): IfStmt {
    const t = this.next(); // if or elif
    const condition = this.parseTest();
    this.consume(":");
    const then = this.parseSuite();
    let otherwise: Stmt[] = [];
    if (this.kind() === "elif") {
      otherwise = [this.parseIf()];
    } else if (this.kind() === "else") {
      this.next();
      this.consume(":");
      otherwise = this.parseSuite();
    }
    return { kind: "if", condition, then, else: otherwise, line: t.line, col: t.col };
  }

  /** suite = simple_stmt | NEWLINE INDENT {statement} OUTDENT */
  private parseSuite(): Stmt[] {
    if (this.kind() === "newline") {
      this.next();
      this.consume("indent");
      const body = this.parseStmts("outdent");
      if (this.kind() === "outdent") this.next();
      return body;
    }
    const out: Stmt[] = [];
    this.parseSimpleStmt(out);
    return out;
  }

  /** simple_stmt = small_stmt {';' small_stmt} [';'] NEWLINE */
  private parseSimpleStmt(out: Stmt[]): void {
    for (;;) {
      out.push(this.parseSmallStmt());
      if (this.kind() !== ";") break;
      this.next();
      if (this.kind() === "newline" || this.kind() === "eof") break;
    }
    if (this.kind() !== "eof") this.consume("newline");
  }

  /** small_stmt = return | break | continue | pass | load | assignment | expression */
  private parseSmallStmt(): Stmt {
    const t = this.token;
    switch (t.kind) {
      case "return": {
        this.next();
        const k = this.kind();
        const result = k !== "eof" && k !== "newline" && k !== ";"
          ? this.parseExpr(false)
          : undefined;
        return { kind: "return", result, line: t.line, col: t.col };
      }
      case "break":
      case "continue":
      case "pass":
        this.next();
        return { kind: t.kind, line: t.line, col: t.col };
      case "load":
        return this.parseLoad();
    }
    const x = this.parseExpr(false);
    if (AUGMENTED.has(this.kind())) {
      const op = this.next();
      const rhs = this.parseExpr(false);
      return { kind: "assign", operator: op.kind, lhs: x, rhs, line: op.line, col: op.col };
    }
    return { kind: "expr", expr: x, line: t.line, col: t.col };
  }

  /** load_stmt = 'load' '(' string {',' [name '='] string} [','] ')' */
  private parseLoad(): LoadStmt {
    const t = this.next();
    const lparen = this.consume("(");
    if (this.kind() !== "string") {
      this.fail("first operand of load statement must be a string literal");
    }
    const module = this.next().value as string;
    const names: LoadName[] = [];
    for (;;) {
      if (this.kind() === ")") break;
      this.consume(",");
      if (this.kind() === ")") break;
      names.push(this.parseLoadName());
    }
    this.next();
    if (names.length === 0) this.fail("load statement must import at least 1 symbol", lparen);
    return { kind: "load", module, names, line: t.line, col: t.col };
  }

  /** One load operand: `"name"` or `local="name"`. */
  private parseLoadName(): LoadName {
    if (this.kind() === "string") {
      const s = this.next();
      const name = s.value as string;
      return { local: { kind: "ident", name, line: s.line, col: s.col }, original: name };
    }
    if (this.kind() !== "ident") {
      this.fail(`load operand must be "name" or localname="name" (got ${quoted(this.kind())})`);
    }
    const id = this.parseIdent();
    if (this.kind() !== "=") {
      this.fail(
        `load operand must be "${id.name}" or ${id.name}="originalname" (want '=' after ${id.name})`,
      );
    }
    this.next();
    if (this.kind() !== "string") {
      this.fail(`original name of loaded symbol must be quoted: ${id.name}="originalname"`);
    }
    return { local: id, original: this.next().value as string };
  }

  /** Parameters of a def or lambda, up to `)` or `:`. */
  private parseParams(): Param[] {
    const params: Param[] = [];
    while (this.kind() !== ")" && this.kind() !== ":" && this.kind() !== "eof") {
      if (params.length > 0) this.consume(",");
      if (this.kind() === ")") break;
      params.push(this.parseParam());
    }
    return params;
  }

  /** param = name | name '=' test | '*' [name] | '**' name */
  private parseParam(): Param {
    if (this.kind() === "*" || this.kind() === "**") {
      const op = this.next();
      if (op.kind === "**" || this.kind() === "ident") {
        const name = this.parseIdent();
        const kind = op.kind === "*" ? "star" : "starstar";
        return { kind, name, line: op.line, col: op.col };
      }
      return { kind: "bare", line: op.line, col: op.col };
    }
    const name = this.parseIdent();
    if (this.kind() === "=") {
      const equals = this.next();
      const defaultValue = this.parseTest();
      return { kind: "optional", name, defaultValue, line: name.line, col: name.col, equals };
    }
    return { kind: "required", name, line: name.line, col: name.col };
  }

  /** expr = test {',' test}: a bare tuple when there is a comma. */
  private parseExpr(inParens: boolean): Expr {
    const x = this.parseTest();
    if (this.kind() !== ",") return x;
    return this.parseExprs([x], inParens, x);
  }

  /** The rest of a comma-separated list after its first element. */
  private parseExprs(list: Expr[], allowTrailingComma: boolean, first: Expr): Expr {
    while (this.kind() === ",") {
      const comma = this.next();
      if (TERMINATORS.has(this.kind())) {
        if (!allowTrailingComma) this.fail("unparenthesized tuple with trailing comma", comma);
        break;
      }
      list.push(this.parseTest());
    }
    return {
      kind: "tuple",
      elements: list,
      line: first.line,
      col: first.col,
      parenthesized: false,
    };
  }

  /** test = lambda | binop_expr ['if' binop_expr 'else' test] */
  private parseTest(): Expr {
    if (this.kind() === "lambda") return this.parseLambda(true);
    const x = this.parseTestPrec(0);
    if (this.kind() === "if") {
      const ifToken = this.next();
      const condition = this.parseTestPrec(0);
      if (this.kind() !== "else") {
        this.fail("conditional expression without else clause", ifToken);
      }
      this.next();
      const otherwise = this.parseTest();
      return {
        kind: "conditional",
        condition,
        then: x,
        else: otherwise,
        line: ifToken.line,
        col: ifToken.col,
      };
    }
    return x;
  }

  /** A test without a conditional (comprehension `if` clauses). */
  private parseTestNoCond(): Expr {
    if (this.kind() === "lambda") return this.parseLambda(false);
    return this.parseTestPrec(0);
  }

  /** lambda = 'lambda' params ':' test (no conditional body in a comprehension clause). */
  private parseLambda(allowCond: boolean): Expr {
    const t = this.next();
    const params = this.parseParams();
    this.consume(":");
    const body = allowCond ? this.parseTest() : this.parseTestNoCond();
    return { kind: "lambda", params, body, line: t.line, col: t.col };
  }

  /** An expression of binary operators of precedence `prec` or higher (or unary `not`). */
  private parseTestPrec(prec: number): Expr {
    if (prec >= NLEVELS) return this.parsePrimaryWithSuffix();
    if (this.kind() === "not" && prec === PRECEDENCE["not"]) {
      const t = this.next();
      const operand = this.parseTestPrec(prec);
      return { kind: "unary", operator: "not", operand, line: t.line, col: t.col };
    }
    return this.parseBinopExpr(prec);
  }

  /** A left-associative chain of binary operators of precedence `prec` or higher; comparisons do not chain. */
  private parseBinopExpr(prec: number): Expr {
    let x = this.parseTestPrec(prec + 1);
    for (let first = true;; first = false) {
      let op = this.kind();
      if (op === "not") {
        // "not in" (the unary "not" has lower precedence and was handled above)
        this.expectNotIn();
        op = "not in";
      }
      const opprec = PRECEDENCE[op];
      if (opprec === undefined || opprec < prec) return x;
      if (!first && opprec === PRECEDENCE["=="]) {
        const previous = x as { operator: string };
        this.fail(`${previous.operator} does not associate with ${op} (use parens)`);
      }
      const t = this.next();
      if (op === "not in") this.next();
      const y = this.parseTestPrec(opprec + 1);
      x = { kind: "binary", operator: op, left: x, right: y, line: t.line, col: t.col };
    }
  }

  /** At a binary `not`: fail unless `in` follows (looking ahead without consuming). */
  private expectNotIn(): void {
    const saved = this.index;
    this.next();
    if (this.kind() !== "in") this.fail(`got ${quoted(this.kind())}, want in`);
    this.index = saved;
    this.token = this.tokens[saved];
  }

  /** primary_with_suffix = primary {'.' name | '[' slice ']' | '(' args ')'} */
  private parsePrimaryWithSuffix(): Expr {
    let x = this.parsePrimary();
    for (;;) {
      if (this.kind() === ".") {
        const dot = this.next();
        const id = this.parseIdent();
        x = { kind: "dot", object: x, name: id.name, line: dot.line, col: dot.col };
      } else if (this.kind() === "[") {
        x = this.parseSliceSuffix(x);
      } else if (this.kind() === "(") {
        const lparen = this.next();
        const args = this.kind() !== ")" ? this.parseArgs() : [];
        this.consume(")");
        x = { kind: "call", callee: x, args, line: lparen.line, col: lparen.col };
      } else {
        return x;
      }
    }
  }

  /** An index `x[i]` or slice `x[lo:hi:step]`, at the `[`. */
  private parseSliceSuffix(object: Expr): Expr {
    const lbracket = this.next();
    let low: Expr | undefined, high: Expr | undefined, step: Expr | undefined;
    if (this.kind() !== ":") {
      const y = this.parseExpr(false);
      if (this.kind() === "]") {
        this.next();
        return { kind: "index", object, index: y, line: lbracket.line, col: lbracket.col };
      }
      low = y;
    }
    if (this.kind() === ":") {
      this.next();
      if (this.kind() !== ":" && this.kind() !== "]") high = this.parseTest();
    }
    if (this.kind() === ":") {
      this.next();
      if (this.kind() !== "]") step = this.parseTest();
    }
    this.consume("]");
    return { kind: "slice", object, low, high, step, line: lbracket.line, col: lbracket.col };
  }

  /** Call arguments, up to `)`. */
  private parseArgs(): Arg[] {
    const args: Arg[] = [];
    while (this.kind() !== ")" && this.kind() !== "eof") {
      if (args.length > 0) this.consume(",");
      if (this.kind() === ")") break;
      args.push(this.parseArg());
    }
    return args;
  }

  /** arg = test | name '=' test | '*' test | '**' test */
  private parseArg(): Arg {
    const t = this.token;
    if (t.kind === "*" || t.kind === "**") {
      this.next();
      const kind = t.kind === "*" ? "star" : "starstar";
      return { kind, value: this.parseTest(), line: t.line, col: t.col };
    }
    const x = this.parseTest();
    if (this.kind() === "=") {
      if (x.kind !== "ident") this.fail("keyword argument must have form name=expr");
      this.next();
      const name = (x as Ident).name;
      return { kind: "named", name, value: this.parseTest(), line: t.line, col: t.col };
    }
    return { kind: "positional", value: x, line: t.line, col: t.col };
  }

  /** primary = name | literal | list | dict | '(' [expr] ')' | ('-' | '+' | '~') primary */
  private parsePrimary(): Expr {
    const t = this.token;
    switch (t.kind) {
      case "ident":
        return this.parseIdent();
      case "int":
      case "float":
      case "string":
      case "bytes":
        this.next();
        return {
          kind: "literal",
          token: t.kind,
          value: t.value as string | number | bigint,
          line: t.line,
          col: t.col,
        };
      case "[":
        return this.parseList(t);
      case "{":
        return this.parseDict(t);
      case "(":
        return this.parseParen(t);
      case "-":
      case "+":
      case "~": {
        this.next();
        const operand = this.parsePrimaryWithSuffix();
        return { kind: "unary", operator: t.kind, operand, line: t.line, col: t.col };
      }
    }
    return this.fail(`got ${quoted(t.kind)}, want primary expression`);
  }

  /** A list display or list comprehension, at the `[`. */
  private parseList(lbracket: Token): Expr {
    const { line, col } = lbracket;
    this.next();
    if (this.kind() === "]") {
      this.next();
      return { kind: "list", elements: [], line, col };
    }
    const x = this.parseTest();
    if (this.kind() === "for") return this.parseComprehension(lbracket, x, "]", false);
    const elements = [x];
    if (this.kind() === ",") {
      const tuple = this.parseExprs(elements, true, x) as { elements: Expr[] };
      this.consume("]");
      return { kind: "list", elements: tuple.elements, line, col };
    }
    this.consume("]");
    return { kind: "list", elements, line, col };
  }

  /** A dict display or dict comprehension, at the `{`. */
  private parseDict(lbrace: Token): Expr {
    const { line, col } = lbrace;
    this.next();
    if (this.kind() === "}") {
      this.next();
      return { kind: "dict", entries: [], line, col };
    }
    const entry = this.parseDictEntry();
    if (this.kind() === "for") return this.parseComprehension(lbrace, entry, "}", true);
    const entries = [entry];
    while (this.kind() === ",") {
      this.next();
      if (this.kind() === "}") break;
      entries.push(this.parseDictEntry());
    }
    this.consume("}");
    return { kind: "dict", entries, line, col };
  }

  /** A parenthesized expression or tuple, at the `(`. */
  private parseParen(lparen: Token): Expr {
    const { line, col } = lparen;
    this.next();
    if (this.kind() === ")") {
      this.next();
      return { kind: "tuple", elements: [], line, col, parenthesized: true };
    }
    const e = this.parseExpr(true);
    this.consume(")");
    if (e.kind === "tuple" && !e.parenthesized) {
      return { ...e, parenthesized: true, line, col };
    }
    return { kind: "paren", inner: e, line, col };
  }

  /** entry = test ':' test */
  private parseDictEntry(): DictEntry {
    const key = this.parseTest();
    this.consume(":");
    return { key, value: this.parseTest() };
  }

  /** The clauses of a comprehension whose body is parsed; ends at `end`. */
  private parseComprehension(
    open: Token,
    body: Expr | DictEntry,
    end: string,
    dict: boolean,
  ): Comprehension {
    const clauses: Clause[] = [];
    for (;;) {
      if (this.kind() === "for") {
        const f = this.next();
        const vars = this.parseForLoopVariables();
        this.consume("in");
        const iterable = this.parseTestPrec(0);
        clauses.push({ kind: "for", vars, iterable, line: f.line, col: f.col });
      } else if (this.kind() === "if") {
        const f = this.next();
        const condition = this.parseTestNoCond();
        clauses.push({ kind: "if", condition, line: f.line, col: f.col });
      } else if (this.kind() === end) {
        break;
      } else {
        this.fail(`got ${quoted(this.kind())}, want '${end}', for, or if`);
      }
    }
    this.next();
    return { kind: "comprehension", dict, body, clauses, line: open.line, col: open.col };
  }

  /** loop_variables = primary_with_suffix {',' primary_with_suffix} */
  private parseForLoopVariables(): Expr {
    const v = this.parsePrimaryWithSuffix();
    if (this.kind() !== ",") return v;
    const list = [v];
    while (this.kind() === ",") {
      this.next();
      if (TERMINATORS.has(this.kind())) break;
      list.push(this.parsePrimaryWithSuffix());
    }
    return { kind: "tuple", elements: list, line: v.line, col: v.col, parenthesized: false };
  }
}
