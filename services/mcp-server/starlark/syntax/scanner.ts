/** Scanner: source text → tokens (with INDENT/OUTDENT/NEWLINE), starlark-go rules. */
import { StarlarkError } from "../errors.ts";
import { utf8Encode } from "../values/bytes_text.ts";

export interface Token {
  /** Token kind: "ident", "int", "float", "string", "bytes", "newline", "indent", "outdent",
   * "eof", a keyword, or the punctuation text itself. */
  k: string;
  /** Decoded value: identifier/keyword text, number, bigint, or byte string. */
  v: string | number | bigint | null;
  line: number;
  col: number;
  /** Position just after the token (starlark-go reports parse errors there). */
  el: number;
  ec: number;
  /** For kind "error": the scanner error, raised when the parser reaches this token. */
  err?: StarlarkError;
}

/** Starlark's keywords. */
export const KEYWORDS: ReadonlySet<string> = new Set([
  "and",
  "break",
  "continue",
  "def",
  "elif",
  "else",
  "for",
  "if",
  "in",
  "lambda",
  "load",
  "not",
  "or",
  "pass",
  "return",
  "while",
]);

/** Reserved words: scanned as the ILLEGAL token ("illegal token"), so never names. */
export const RESERVED: ReadonlySet<string> = new Set([
  "as",
  "class",
  "del",
  "except",
  "finally",
  "from",
  "global",
  "import",
  "is",
  "nonlocal",
  "raise",
  "try",
  "with",
  "yield",
]);

/** Human-readable token names, as starlark-go prints them in "got X, want Y". */
export function tokenName(k: string): string {
  switch (k) {
    case "ident":
      return "identifier";
    case "int":
      return "int literal";
    case "float":
      return "float literal";
    case "string":
      return "string literal";
    case "bytes":
      return "bytes literal";
    case "newline":
      return "newline";
    case "indent":
      return "indent";
    case "outdent":
      return "outdent";
    case "illegal":
      return "illegal token";
    case "eof":
      return "end of file";
    default:
      return k;
  }
}

const PUNCT3 = ["//=", "<<=", ">>="];
const PUNCT2 = [
  "<=",
  ">=",
  "==",
  "!=",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "&=",
  "|=",
  "^=",
  "<<",
  ">>",
  "//",
  "**",
];
const PUNCT1 = "+-*/%&|^~.,=;:()[]{}<>";

function isDigit(c: string): boolean {
  return c >= "0" && c <= "9";
}
function isIdentStart(c: string): boolean {
  return (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_" ||
    (c > "\x7f" && /\p{L}/u.test(c));
}
function isIdentPart(c: string): boolean {
  return isIdentStart(c) || isDigit(c) || (c > "\x7f" && /\p{Nd}/u.test(c));
}

/**
 * Tokenise a whole file. A scanner error ends the list with an "error" token, so the parser
 * raises it only when it gets there (starlark-go scans lazily: the first error in source
 * order wins).
 */
export function scan(src: string, filename: string): Token[] {
  const toks: Token[] = [];
  try {
    scanInto(src, filename, toks);
  } catch (e) {
    if (!(e instanceof StarlarkError)) throw e;
    toks.push({ k: "error", v: null, line: e.line, col: e.col, el: e.line, ec: e.col, err: e });
  }
  return toks;
}

function scanInto(src: string, filename: string, toks: Token[]): Token[] {
  src = src.replace(/\r\n/g, "\n");
  let i = 0;
  let line = 1;
  let col = 1;
  let depth = 0;
  const indents = [0];
  let lineStart = true;
  const err = (msg: string, l = line, c = col): never => {
    throw new StarlarkError("syntax", msg, { filename, line: l, col: c });
  };
  const adv = (): string => {
    const cp = src.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    i += ch.length;
    if (ch === "\n") {
      line++;
      col = 1;
    } else col++;
    return ch;
  };
  const peek = (o = 0) => src[i + o] ?? "";
  const push = (k: string, v: Token["v"], l: number, c: number) =>
    toks.push({ k, v, line: l, col: c, el: line, ec: col });
  for (;;) {
    const savedLineStart = lineStart;
    // a line holding only a comment or nothing produces no NEWLINE (computed at line start
    // only, as in starlark-go: after a backslash continuation the newline is not blank)
    let blank = false;
    if (lineStart) {
      lineStart = false;
      let ind = 0;
      for (;;) {
        const c = peek();
        if (c === " ") ind++;
        else if (c === "\t") ind += 8 - ((col - 1) % 8);
        else break;
        adv();
      }
      const c = peek();
      blank = c === "#" || c === "\n" || c === "";
      if (!blank && depth === 0) {
        const cur = indents[indents.length - 1];
        if (ind > cur) {
          indents.push(ind);
          push("indent", null, line, col);
        } else if (ind < cur) {
          // check before emitting any outdent: the error comes first, as in starlark-go
          if (!indents.includes(ind)) err("unindent does not match any outer indentation level");
          while (indents.length > 0 && ind < indents[indents.length - 1]) {
            indents.pop();
            push("outdent", null, line, col);
          }
        }
      }
    }
    let c = peek();
    while (c === " " || c === "\t") {
      adv();
      c = peek();
    }
    if (c === "#") {
      while (c !== "" && c !== "\n") {
        adv();
        c = peek();
      }
    }
    if (c === "\n") {
      const l = line, cl = col;
      adv();
      lineStart = true;
      if (depth > 0 || blank) continue;
      push("newline", null, l, cl);
      continue;
    }
    if (c === "") {
      // starlark-go: a NEWLINE precedes the final OUTDENTs unless we are at a line start
      if (indents.length > 1 && !savedLineStart) push("newline", null, line, col);
      while (indents.length > 1) {
        indents.pop();
        push("outdent", null, line, col);
      }
      push("eof", null, line, col);
      return toks;
    }
    if (c === "\\") {
      adv();
      if (peek() !== "\n") err("stray backslash in program");
      adv();
      continue;
    }
    const l = line, cl = col;
    if (c === '"' || c === "'") {
      push("string", scanString(false, false), l, cl);
      continue;
    }
    if (isIdentStart(c)) {
      const c1 = peek(1), c2 = peek(2);
      if ((c === "r" || c === "b") && (c1 === '"' || c1 === "'")) {
        adv();
        const s = scanString(c === "r", c === "b");
        push(c === "b" ? "bytes" : "string", s, l, cl);
        continue;
      }
      if (c === "r" && c1 === "b" && (c2 === '"' || c2 === "'")) {
        adv();
        adv();
        push("bytes", scanString(true, true), l, cl);
        continue;
      }
      let id = "";
      while (peek() !== "" && isIdentPart(String.fromCodePoint(src.codePointAt(i)!))) id += adv();
      if (KEYWORDS.has(id)) push(id, id, l, cl);
      else if (RESERVED.has(id)) push("illegal", id, l, cl);
      else push("ident", utf8Encode(id), l, cl);
      continue;
    }
    if (isDigit(c) || (c === "." && isDigit(peek(1)))) {
      scanNumber(l, cl);
      continue;
    }
    if (c === "(" || c === "[" || c === "{") {
      depth++;
      adv();
      push(c, null, l, cl);
      continue;
    }
    if (c === ")" || c === "]" || c === "}") {
      if (depth === 0) err(`unexpected '${c}'`);
      depth--;
      adv();
      push(c, null, l, cl);
      continue;
    }
    const three = src.slice(i, i + 3);
    const two = src.slice(i, i + 2);
    if (PUNCT3.includes(three)) {
      adv();
      adv();
      adv();
      push(three, null, l, cl);
      continue;
    }
    if (PUNCT2.includes(two)) {
      adv();
      adv();
      push(two, null, l, cl);
      continue;
    }
    if (c === "!") err("unexpected input character '!'");
    if (PUNCT1.includes(c)) {
      adv();
      push(c, null, l, cl);
      continue;
    }
    err(`unexpected input character ${JSON.stringify(c)}`);
  }

  function scanNumber(l: number, cl: number): void {
    const start = i;
    let isFloat = false;
    const digits = (pred: (c: string) => boolean) => {
      while (pred(peek())) adv();
    };
    const c = peek();
    const c1 = peek(1).toLowerCase();
    if (c === "0" && (c1 === "x" || c1 === "o" || c1 === "b")) {
      adv();
      adv();
      const pred = c1 === "x"
        ? (d: string) => /^[0-9a-fA-F]$/.test(d)
        : c1 === "o"
        ? (d: string) => d >= "0" && d <= "7"
        : (d: string) => d === "0" || d === "1";
      if (!pred(peek())) {
        err(
          c1 === "x"
            ? "invalid hex literal"
            : c1 === "o"
            ? "invalid octal literal"
            : "invalid binary literal",
          c1 === "x" ? l : line,
          c1 === "x" ? cl : col,
        );
      }
      digits(pred);
    } else {
      digits(isDigit);
      if (peek() === ".") {
        isFloat = true;
        adv();
        digits(isDigit);
      }
      if (peek() === "e" || peek() === "E") {
        isFloat = true;
        adv();
        if (peek() === "+" || peek() === "-") {
          adv();
          if (!isDigit(peek())) err("invalid float literal");
        }
        digits(isDigit);
      }
    }
    const raw = src.slice(start, i);
    if (isFloat) {
      const f = Number(raw);
      if (!Number.isFinite(f)) err("invalid float literal"); // as strconv.ParseFloat (range)
      push("float", f, l, cl);
      return;
    }
    if (raw.length > 1 && raw[0] === "0" && isDigit(raw[1])) {
      if (!/^0+$/.test(raw)) {
        if (/^[0-7]+$/.test(raw)) err(`obsolete form of octal literal; use 0o${raw.slice(1)}`);
        err("invalid int literal", l, cl);
      }
    }
    const big = BigInt(raw);
    const n = Number(big);
    push("int", Number.isSafeInteger(n) ? n : big, l, cl);
  }

  function scanString(raw: boolean, isBytes: boolean): string {
    const sl = line, sc = col - (raw || isBytes ? 1 : 0);
    const q = peek();
    const triple = peek(1) === q && peek(2) === q;
    adv();
    if (triple) {
      adv();
      adv();
    }
    let out = "";
    let lit = ""; // pending literal (unicode) text
    // starlark-go finds the end of the literal first, then unquotes it: an escape error is
    // reported only when the literal is properly terminated
    let escapeError: string | null = null;
    /** Source text from here to the end of the literal's body (without the closing quote). */
    const bodyRest = (): string => {
      let k = i;
      while (k < src.length) {
        if (src[k] === "\\") k += 2;
        else if (triple ? src.startsWith(q + q + q, k) : src[k] === q || src[k] === "\n") break;
        else k++;
      }
      return src.slice(i, Math.min(k, src.length));
    };
    const bad = (msg: string) => {
      escapeError ??= msg;
    };
    const flush = () => {
      if (lit) {
        out += utf8Encode(lit);
        lit = "";
      }
    };
    for (;;) {
      if (i >= src.length) err("unexpected EOF in string", sl, sc);
      const ch = peek();
      if (ch === q) {
        if (!triple) {
          adv();
          break;
        }
        if (peek(1) === q && peek(2) === q) {
          adv();
          adv();
          adv();
          break;
        }
        lit += adv();
        continue;
      }
      if (ch === "\n" && !triple) err("unexpected newline in string", sl, sc);
      if (ch !== "\\") {
        lit += adv();
        continue;
      }
      adv();
      if (i >= src.length) err("unexpected EOF in string", sl, sc);
      const e = peek();
      if (raw) {
        // raw strings keep the backslash; it only prevents the quote from terminating
        if (e === "\n") {
          lit += "\\";
          lit += adv();
        } else {
          lit += "\\" + adv();
        }
        continue;
      }
      const simple: Record<string, string> = {
        a: "\x07",
        b: "\b",
        f: "\f",
        n: "\n",
        r: "\r",
        t: "\t",
        v: "\v",
        "\\": "\\",
        "'": "'",
        '"': '"',
      };
      if (e === "\n") {
        adv();
        continue;
      }
      if (e in simple) {
        adv();
        lit += simple[e];
        continue;
      }
      if (e >= "0" && e <= "7") {
        let n = 0, k = 0, txt = "";
        while (k < 3 && peek() >= "0" && peek() <= "7") {
          txt += peek();
          n = n * 8 + Number(adv());
          k++;
        }
        if (n >= 256) bad(`invalid escape sequence \\${txt}`);
        flush();
        out += String.fromCharCode(n);
        continue;
      }
      if (e === "x") {
        adv();
        const h = src.slice(i, i + 2);
        if (!/^[0-9a-fA-F]{2}$/.test(h)) {
          // starlark-go unquotes the body (closing quote excluded), byte-wise
          const rest = utf8Encode("\\x" + bodyRest());
          bad(
            rest.length < 4
              ? `truncated escape sequence ${rest}`
              : `invalid escape sequence ${rest.slice(0, 4)}`,
          );
          continue;
        }
        adv();
        adv();
        const n = parseInt(h, 16);
        if (!isBytes && n > 127) {
          // starlark-go allows \x80-\xff in strings too (raw bytes)
        }
        flush();
        out += String.fromCharCode(n);
        continue;
      }
      if (e === "u" || e === "U") {
        adv();
        const len = e === "u" ? 4 : 8;
        const h = src.slice(i, i + len);
        if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(h)) {
          bad(`truncated escape sequence \\${e}${h}`);
          continue;
        }
        for (let k = 0; k < len; k++) adv();
        const n = parseInt(h, 16);
        if (n > 0x10ffff || (n >= 0xd800 && n < 0xe000)) {
          bad(`invalid Unicode code point U+${h}`);
          continue;
        }
        lit += String.fromCodePoint(n);
        continue;
      }
      bad(`invalid escape sequence \\${e}`);
      adv();
    }
    if (escapeError !== null) err(escapeError, sl, sc);
    flush();
    return out;
  }
}
