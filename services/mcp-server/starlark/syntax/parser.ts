/** Recursive-descent parser following starlark-go's grammar and error texts. */
import { StarlarkError } from "../errors.ts";
import type { Arg, Clause, Expr, File, Ident, Param, Stmt } from "./ast.ts";
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

function quoted(k: string): string {
  // starlark-go prints punctuation tokens quoted, names/keywords bare
  return /^[a-z]/.test(k) || k === "not in" ? tokenName(k) : `'${k}'`;
}

/** Parse a whole file; throws StarlarkError (kind "syntax") at the first error. */
export function parseFile(src: string, filename: string): File {
  const toks = scan(src, filename);
  let p = 0;
  let tok: Token = toks[0];
  if (tok.err) throw tok.err;
  const kk = (): string => tok.k;
  const next = (): Token => {
    const t = tok;
    if (p < toks.length - 1) p++;
    tok = toks[p];
    if (tok.err) throw tok.err;
    return t;
  };
  // starlark-go reports parse errors at the scanner position *after* the current token,
  // which for a newline token is the start of the next line.
  const here = () => ({ line: tok.el, col: tok.ec });
  const fail = (msg: string, at: { line: number; col: number } = here()): never => {
    throw new StarlarkError("syntax", msg, { filename, line: at.line, col: at.col });
  };
  const consume = (k: string): Token => {
    if (kk() !== k) fail(`got ${quoted(kk())}, want ${quoted(k)}`);
    return next();
  };

  function parseIdent(): Ident {
    if (kk() !== "ident") fail("not an identifier");
    const t = next();
    return { t: "ident", name: t.v as string, line: t.line, col: t.col };
  }

  /** Statements up to `until`; stray NEWLINE tokens are skipped at file level only. */
  function parseStmts(until: string): Stmt[] {
    const out: Stmt[] = [];
    while (kk() !== until && kk() !== "eof") {
      if (kk() === "newline" && until === "eof") {
        next();
        continue;
      }
      parseStmt(out);
    }
    return out;
  }

  function parseStmt(out: Stmt[]): void {
    const t = tok;
    if (t.k === "def") {
      next();
      const name = parseIdent();
      consume("(");
      const params = parseParams();
      consume(")");
      consume(":");
      out.push({ t: "def", name, params, body: parseSuite(), line: t.line, col: t.col });
    } else if (t.k === "if") {
      out.push(parseIf());
    } else if (t.k === "for") {
      next();
      const vars = parseForLoopVariables();
      consume("in");
      const x = parseExpr(false);
      consume(":");
      out.push({ t: "for", vars, x, body: parseSuite(), line: t.line, col: t.col });
    } else if (t.k === "while") {
      next();
      const cond = parseTest();
      consume(":");
      out.push({ t: "while", cond, body: parseSuite(), line: t.line, col: t.col });
    } else {
      parseSimpleStmt(out);
    }
  }

  function parseIf(): Stmt {
    const t = next(); // if or elif
    const cond = parseTest();
    consume(":");
    const then = parseSuite();
    let els: Stmt[] = [];
    if (kk() === "elif") {
      els = [parseIf()];
    } else if (kk() === "else") {
      next();
      consume(":");
      els = parseSuite();
    }
    return { t: "if", cond, then, else: els, line: t.line, col: t.col };
  }

  function parseSuite(): Stmt[] {
    if (kk() === "newline") {
      next();
      consume("indent");
      const body = parseStmts("outdent");
      if (kk() === "outdent") next();
      return body;
    }
    const out: Stmt[] = [];
    parseSimpleStmt(out);
    return out;
  }

  function parseSimpleStmt(out: Stmt[]): void {
    for (;;) {
      out.push(parseSmallStmt());
      if (kk() !== ";") break;
      next();
      if (kk() === "newline" || kk() === "eof") break;
    }
    if (kk() !== "eof") consume("newline");
  }

  function parseSmallStmt(): Stmt {
    const t = tok;
    switch (t.k) {
      case "return": {
        next();
        let x: Expr | undefined;
        if (kk() !== "eof" && kk() !== "newline" && kk() !== ";") x = parseExpr(false);
        return { t: "return", x, line: t.line, col: t.col };
      }
      case "break":
      case "continue":
      case "pass":
        next();
        return { t: t.k, line: t.line, col: t.col };
      case "load":
        return parseLoad();
    }
    const x = parseExpr(false);
    if (AUGMENTED.has(kk())) {
      const op = next();
      const rhs = parseExpr(false);
      return { t: "assign", op: op.k, lhs: x, rhs, line: op.line, col: op.col };
    }
    return { t: "expr", x, line: t.line, col: t.col };
  }

  function parseLoad(): Stmt {
    const t = next();
    const lparen = consume("(");
    if (kk() !== "string") fail("first operand of load statement must be a string literal");
    const module = next().v as string;
    const names: { to: Ident; from: string }[] = [];
    for (;;) {
      if (kk() === ")") break;
      consume(",");
      if (kk() === ")") break;
      if (kk() === "string") {
        const s = next();
        names.push({
          to: { t: "ident", name: s.v as string, line: s.line, col: s.col },
          from: s.v as string,
        });
      } else if (kk() === "ident") {
        const id = parseIdent();
        if (kk() !== "=") {
          fail(
            `load operand must be "${id.name}" or ${id.name}="originalname" (want '=' after ${id.name})`,
          );
        }
        next();
        if (kk() !== "string") {
          fail(`original name of loaded symbol must be quoted: ${id.name}="originalname"`);
        }
        names.push({ to: id, from: next().v as string });
      } else {
        fail(`load operand must be "name" or localname="name" (got ${quoted(kk())})`);
      }
    }
    next();
    if (names.length === 0) fail("load statement must import at least 1 symbol", lparen);
    return { t: "load", module, names, line: t.line, col: t.col };
  }

  function parseParams(): Param[] {
    const params: Param[] = [];
    while (kk() !== ")" && kk() !== ":" && kk() !== "eof") {
      if (params.length > 0) consume(",");
      if (kk() === ")") break;
      if (kk() === "*" || kk() === "**") {
        const op = next();
        if (op.k === "**" || kk() === "ident") {
          const name = parseIdent();
          params.push({
            kind: op.k === "*" ? "star" : "starstar",
            name,
            line: op.line,
            col: op.col,
          });
        } else {
          params.push({ kind: "bare", line: op.line, col: op.col });
        }
        continue;
      }
      const name = parseIdent();
      if (kk() === "=") {
        const eq = next();
        params.push({ kind: "opt", name, dflt: parseTest(), line: name.line, col: name.col, eq });
      } else {
        params.push({ kind: "req", name, line: name.line, col: name.col });
      }
    }
    return params;
  }

  function parseExpr(inParens: boolean): Expr {
    const x = parseTest();
    if (kk() !== ",") return x;
    return parseExprs([x], inParens, x);
  }

  function parseExprs(list: Expr[], allowTrailingComma: boolean, first: Expr): Expr {
    while (kk() === ",") {
      const comma = next();
      if (TERMINATORS.has(kk())) {
        if (!allowTrailingComma) fail("unparenthesized tuple with trailing comma", comma);
        break;
      }
      list.push(parseTest());
    }
    return { t: "tuple", elems: list, line: first.line, col: first.col, paren: false };
  }

  function parseTest(): Expr {
    if (kk() === "lambda") return parseLambda(true);
    const x = parseTestPrec(0);
    if (kk() === "if") {
      const ifpos = next();
      const cond = parseTestPrec(0);
      if (kk() !== "else") fail("conditional expression without else clause", ifpos);
      next();
      const els = parseTest();
      return { t: "cond", cond, then: x, else: els, line: ifpos.line, col: ifpos.col };
    }
    return x;
  }

  function parseTestNoCond(): Expr {
    if (kk() === "lambda") return parseLambda(false);
    return parseTestPrec(0);
  }

  function parseLambda(allowCond: boolean): Expr {
    const t = next();
    const params = parseParams();
    consume(":");
    const body = allowCond ? parseTest() : parseTestNoCond();
    return { t: "lambda", params, body, line: t.line, col: t.col };
  }

  function parseTestPrec(prec: number): Expr {
    if (prec >= NLEVELS) return parsePrimaryWithSuffix();
    if (kk() === "not" && prec === PRECEDENCE["not"]) {
      const t = next();
      const x = parseTestPrec(prec);
      return { t: "unary", op: "not", x, line: t.line, col: t.col };
    }
    return parseBinopExpr(prec);
  }

  function parseBinopExpr(prec: number): Expr {
    let x = parseTestPrec(prec + 1);
    for (let first = true;; first = false) {
      let op = kk();
      if (op === "not") {
        // "not in" (the unary "not" has lower precedence and was handled above)
        const save = p;
        next();
        if (kk() !== "in") {
          fail(`got ${quoted(kk())}, want in`);
        }
        p = save;
        tok = toks[p];
        op = "not in";
      }
      const opprec = PRECEDENCE[op];
      if (opprec === undefined || opprec < prec) return x;
      if (!first && opprec === PRECEDENCE["=="]) {
        const prev = x as { op: string };
        fail(`${prev.op} does not associate with ${op} (use parens)`);
      }
      const t = next();
      if (op === "not in") next();
      const y = parseTestPrec(opprec + 1);
      x = { t: "binary", op, x, y, line: t.line, col: t.col };
    }
  }

  function parsePrimaryWithSuffix(): Expr {
    let x = parsePrimary();
    for (;;) {
      if (kk() === ".") {
        const dot = next();
        const id = parseIdent();
        x = { t: "dot", x, name: id.name, line: dot.line, col: dot.col };
      } else if (kk() === "[") {
        x = parseSliceSuffix(x);
      } else if (kk() === "(") {
        const lp = next();
        const args = kk() !== ")" ? parseArgs() : [];
        consume(")");
        x = { t: "call", fn: x, args, line: lp.line, col: lp.col };
      } else {
        return x;
      }
    }
  }

  function parseSliceSuffix(x: Expr): Expr {
    const lb = next();
    let lo: Expr | undefined, hi: Expr | undefined, step: Expr | undefined;
    if (kk() !== ":") {
      const y = parseExpr(false);
      if (kk() === "]") {
        next();
        return { t: "index", x, i: y, line: lb.line, col: lb.col };
      }
      lo = y;
    }
    if (kk() === ":") {
      next();
      if (kk() !== ":" && kk() !== "]") hi = parseTest();
    }
    if (kk() === ":") {
      next();
      if (kk() !== "]") step = parseTest();
    }
    consume("]");
    return { t: "slice", x, lo, hi, step, line: lb.line, col: lb.col };
  }

  function parseArgs(): Arg[] {
    const args: Arg[] = [];
    while (kk() !== ")" && kk() !== "eof") {
      if (args.length > 0) consume(",");
      if (kk() === ")") break;
      const t = tok;
      if (kk() === "*" || kk() === "**") {
        next();
        args.push({
          kind: t.k === "*" ? "star" : "starstar",
          v: parseTest(),
          line: t.line,
          col: t.col,
        });
        continue;
      }
      const x = parseTest();
      if (kk() === "=") {
        if (x.t !== "ident") fail("keyword argument must have form name=expr");
        next();
        args.push({
          kind: "named",
          name: (x as Ident).name,
          v: parseTest(),
          line: t.line,
          col: t.col,
        });
        continue;
      }
      args.push({ kind: "pos", v: x, line: t.line, col: t.col });
    }
    return args;
  }

  function parsePrimary(): Expr {
    const t = tok;
    switch (t.k) {
      case "ident":
        return parseIdent();
      case "int":
      case "float":
      case "string":
      case "bytes":
        next();
        return {
          t: "lit",
          v: t.v as string | number | bigint,
          kind: t.k,
          line: t.line,
          col: t.col,
        };
      case "[": {
        next();
        if (kk() === "]") {
          next();
          return { t: "list", elems: [], line: t.line, col: t.col };
        }
        const x = parseTest();
        if (kk() === "for") return parseComprehension(t, x, "]", false);
        const elems = [x];
        if (kk() === ",") {
          const tup = parseExprs(elems, true, x) as { elems: Expr[] };
          consume("]");
          return { t: "list", elems: tup.elems, line: t.line, col: t.col };
        }
        consume("]");
        return { t: "list", elems, line: t.line, col: t.col };
      }
      case "{": {
        next();
        if (kk() === "}") {
          next();
          return { t: "dict", entries: [], line: t.line, col: t.col };
        }
        const e = parseDictEntry();
        if (kk() === "for") return parseComprehension(t, e, "}", true);
        const entries = [e];
        while (kk() === ",") {
          next();
          if (kk() === "}") break;
          entries.push(parseDictEntry());
        }
        consume("}");
        return { t: "dict", entries, line: t.line, col: t.col };
      }
      case "(": {
        next();
        if (kk() === ")") {
          next();
          return { t: "tuple", elems: [], line: t.line, col: t.col, paren: true };
        }
        const e = parseExpr(true);
        consume(")");
        if (e.t === "tuple" && !e.paren) {
          return { ...e, paren: true, line: t.line, col: t.col };
        }
        return { t: "paren", x: e, line: t.line, col: t.col };
      }
      case "-":
      case "+":
      case "~": {
        next();
        const x = parsePrimaryWithSuffix();
        return { t: "unary", op: t.k, x, line: t.line, col: t.col };
      }
    }
    return fail(`got ${quoted(t.k)}, want primary expression`);
  }

  function parseDictEntry(): { k: Expr; v: Expr } {
    const k = parseTest();
    consume(":");
    return { k, v: parseTest() };
  }

  function parseComprehension(
    open: Token,
    body: Expr | { k: Expr; v: Expr },
    end: string,
    dict: boolean,
  ): Expr {
    const clauses: Clause[] = [];
    for (;;) {
      if (kk() === "for") {
        const f = next();
        const vars = parseForLoopVariables();
        consume("in");
        const x = parseTestPrec(0);
        clauses.push({ t: "for", vars, x, line: f.line, col: f.col });
      } else if (kk() === "if") {
        const f = next();
        clauses.push({ t: "if", cond: parseTestNoCond(), line: f.line, col: f.col });
      } else if (kk() === end) {
        break;
      } else {
        fail(`got ${quoted(kk())}, want '${end}', for, or if`);
      }
    }
    next();
    return { t: "comp", dict, body, clauses, line: open.line, col: open.col };
  }

  function parseForLoopVariables(): Expr {
    const v = parsePrimaryWithSuffix();
    if (kk() !== ",") return v;
    const list = [v];
    while (kk() === ",") {
      next();
      if (TERMINATORS.has(kk())) break;
      list.push(parsePrimaryWithSuffix());
    }
    return { t: "tuple", elems: list, line: v.line, col: v.col, paren: false };
  }

  const stmts = parseStmts("eof");
  return { filename, stmts };
}
