/**
 * Scanner: source text → tokens (with INDENT/OUTDENT/NEWLINE), following starlark-go's
 * scan.go rules and error texts. {@linkcode scan} is the entry point; the {@linkcode Scanner}
 * class holds the position and indentation state, one method per kind of token.
 *
 * @module
 */
import { StarlarkError } from "../errors.ts";
import { utf8Encode } from "../values/bytes_text.ts";
import { KEYWORDS, RESERVED } from "../keywords.ts";

/** One token. Every token has the same shape (the parser reads them in a hot loop). */
export interface Token {
  /** Token kind: "ident", "int", "float", "string", "bytes", "newline", "indent", "outdent",
   * "eof", "illegal", "error", a keyword, or the punctuation text itself. */
  kind: string;
  /** Decoded value: identifier/keyword text, number, bigint, or byte string. */
  value: string | number | bigint | null;
  /** 1-based line of the token's start. */
  line: number;
  /** 1-based column of the token's start. */
  col: number;
  /** Line just after the token (starlark-go reports parse errors there). */
  endLine: number;
  /** Column just after the token. */
  endCol: number;
  /** Only on the final token of kind "error": the scanner error, raised when the parser
   * reaches this token. */
  error?: StarlarkError;
}

/** Human-readable token names, as starlark-go prints them in "got X, want Y". */
export function tokenName(kind: string): string {
  switch (kind) {
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
      return kind;
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

/** Escapes that stand for one fixed character. */
const SIMPLE_ESCAPES: ReadonlyMap<string, string> = new Map([
  ["a", "\x07"],
  ["b", "\b"],
  ["f", "\f"],
  ["n", "\n"],
  ["r", "\r"],
  ["t", "\t"],
  ["v", "\v"],
  ["\\", "\\"],
  ["'", "'"],
  ['"', '"'],
]);
const HEX_DIGIT = /^[0-9a-fA-F]$/;
const HEX_PAIR = /^[0-9a-fA-F]{2}$/;
const HEX_4 = /^[0-9a-fA-F]{4}$/;
const HEX_8 = /^[0-9a-fA-F]{8}$/;

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
function isHexDigit(c: string): boolean {
  return HEX_DIGIT.test(c);
}
function isOctalDigit(c: string): boolean {
  return c >= "0" && c <= "7";
}
function isBinaryDigit(c: string): boolean {
  return c === "0" || c === "1";
}

/**
 * Tokenise a whole file. A scanner error ends the list with an "error" token, so the parser
 * raises it only when it gets there (starlark-go scans lazily: the first error in source
 * order wins).
 */
export function scan(src: string, filename: string): Token[] {
  const tokens: Token[] = [];
  try {
    new Scanner(src, filename, tokens).scanAll();
  } catch (e) {
    if (!(e instanceof StarlarkError)) throw e;
    tokens.push({
      kind: "error",
      value: null,
      line: e.line,
      col: e.col,
      endLine: e.line,
      endCol: e.col,
      error: e,
    });
  }
  return tokens;
}

/**
 * The decoded content of one string or bytes literal, built while scanning it: source text
 * is kept pending and UTF-8 encoded in runs, escapes that denote raw bytes are appended as is.
 */
class LiteralText {
  /** Decoded bytes so far, one char per byte. */
  private bytes = "";
  /** Source text (code points) not yet UTF-8 encoded into `bytes`. */
  private pending = "";
  /** The first escape error; starlark-go reports it only if the literal is terminated. */
  escapeError: string | null = null;

  /** Append source text (encoded as UTF-8). */
  addText(text: string): void {
    this.pending += text;
  }

  /** Append one raw byte (from a `\x` or octal escape). */
  addByte(byte: number): void {
    this.flush();
    this.bytes += String.fromCharCode(byte);
  }

  /** Remember an escape error (the first one wins). */
  badEscape(message: string): void {
    this.escapeError ??= message;
  }

  /** The literal's value as a byte string. */
  finish(): string {
    this.flush();
    return this.bytes;
  }

  private flush(): void {
    if (this.pending) {
      this.bytes += utf8Encode(this.pending);
      this.pending = "";
    }
  }
}

/**
 * Scanner state over one source text: the read position (index, line, column), the bracket
 * depth (no NEWLINE/INDENT inside brackets) and the stack of indentation levels.
 */
class Scanner {
  private readonly src: string;
  private readonly filename: string;
  private readonly tokens: Token[];
  /** Index into `src` of the next character. */
  private pos = 0;
  /** 1-based line of the next character. */
  private line = 1;
  /** 1-based column of the next character. */
  private col = 1;
  /** Nesting depth of (), [] and {}. */
  private depth = 0;
  /** Indentation widths of the open blocks; the outermost is 0. */
  private readonly indents: number[] = [0];
  /** Whether the next character starts a line. */
  private atLineStart = true;

  /** Scan `src` (named `filename` in errors), appending tokens to `tokens`. */
  constructor(src: string, filename: string, tokens: Token[]) {
    this.src = src.replace(/\r\n/g, "\n");
    this.filename = filename;
    this.tokens = tokens;
  }

  /** Scan to the end of the file (ending with an "eof" token); throws at the first error. */
  scanAll(): void {
    for (;;) {
      const wasAtLineStart = this.atLineStart;
      // a line holding only a comment or nothing produces no NEWLINE (computed at line start
      // only, as in starlark-go: after a backslash continuation the newline is not blank)
      const blank = wasAtLineStart ? this.scanIndentation() : false;
      this.skipSpacesAndComment();
      const c = this.peek();
      if (c === "\n") this.scanNewline(blank);
      else if (c === "") {
        this.scanEndOfFile(wasAtLineStart);
        return;
      } else if (c === "\\") this.scanLineContinuation();
      else this.scanToken(c);
    }
  }

  /** Throw a syntax error at (line, col), by default the current position. */
  private error(message: string, line = this.line, col = this.col): never {
    throw new StarlarkError("syntax", message, { filename: this.filename, line, col });
  }

  /** Consume one code point and return it, updating line and column. */
  private advance(): string {
    const ch = String.fromCodePoint(this.src.codePointAt(this.pos)!);
    this.pos += ch.length;
    if (ch === "\n") {
      this.line++;
      this.col = 1;
    } else this.col++;
    return ch;
  }

  /** The UTF-16 unit `offset` ahead, or "" past the end. */
  private peek(offset = 0): string {
    return this.src[this.pos + offset] ?? "";
  }

  /** Append a token that started at (line, col) and ends at the current position. */
  private emit(kind: string, value: Token["value"], line: number, col: number): void {
    this.tokens.push({ kind, value, line, col, endLine: this.line, endCol: this.col });
  }

  /**
   * At the start of a line: measure its indentation and emit INDENT/OUTDENT tokens (outside
   * brackets). Returns whether the line is blank (only spaces and maybe a comment).
   */
  private scanIndentation(): boolean {
    this.atLineStart = false;
    let width = 0;
    for (;;) {
      const c = this.peek();
      if (c === " ") width++;
      else if (c === "\t") width += 8 - ((this.col - 1) % 8);
      else break;
      this.advance();
    }
    const c = this.peek();
    const blank = c === "#" || c === "\n" || c === "";
    if (blank || this.depth !== 0) return blank;
    const indents = this.indents;
    const current = indents[indents.length - 1];
    if (width > current) {
      indents.push(width);
      this.emit("indent", null, this.line, this.col);
    } else if (width < current) {
      // check before emitting any outdent: the error comes first, as in starlark-go
      if (!indents.includes(width)) {
        this.error("unindent does not match any outer indentation level");
      }
      while (indents.length > 0 && width < indents[indents.length - 1]) {
        indents.pop();
        this.emit("outdent", null, this.line, this.col);
      }
    }
    return blank;
  }

  /** Skip spaces and tabs, then a comment up to (not including) the line break. */
  private skipSpacesAndComment(): void {
    let c = this.peek();
    while (c === " " || c === "\t") {
      this.advance();
      c = this.peek();
    }
    if (c === "#") {
      while (c !== "" && c !== "\n") {
        this.advance();
        c = this.peek();
      }
    }
  }

  /** A line break: a NEWLINE token unless inside brackets or ending a blank line. */
  private scanNewline(blank: boolean): void {
    const line = this.line, col = this.col;
    this.advance();
    this.atLineStart = true;
    if (this.depth > 0 || blank) return;
    this.emit("newline", null, line, col);
  }

  /** End of input: close the open blocks (NEWLINE first unless at a line start), then EOF. */
  private scanEndOfFile(wasAtLineStart: boolean): void {
    const indents = this.indents;
    // starlark-go: a NEWLINE precedes the final OUTDENTs unless we are at a line start
    if (indents.length > 1 && !wasAtLineStart) this.emit("newline", null, this.line, this.col);
    while (indents.length > 1) {
      indents.pop();
      this.emit("outdent", null, this.line, this.col);
    }
    this.emit("eof", null, this.line, this.col);
  }

  /** A backslash joins the next line to this one; anything else after it is an error. */
  private scanLineContinuation(): void {
    this.advance();
    if (this.peek() !== "\n") this.error("stray backslash in program");
    this.advance();
  }

  /** One token starting with character `c` (not a space, newline, backslash or EOF). */
  private scanToken(c: string): void {
    const line = this.line, col = this.col;
    if (c === '"' || c === "'") {
      this.emit("string", this.scanString(false, false), line, col);
    } else if (isIdentStart(c)) {
      this.scanWord(c, line, col);
    } else if (isDigit(c) || (c === "." && isDigit(this.peek(1)))) {
      this.scanNumber(line, col);
    } else {
      this.scanPunctuation(c, line, col);
    }
  }

  /** An identifier, keyword or reserved word, or a prefixed literal r"", b"", rb"". */
  private scanWord(c: string, line: number, col: number): void {
    const c1 = this.peek(1), c2 = this.peek(2);
    if ((c === "r" || c === "b") && (c1 === '"' || c1 === "'")) {
      this.advance();
      const s = this.scanString(c === "r", c === "b");
      this.emit(c === "b" ? "bytes" : "string", s, line, col);
      return;
    }
    if (c === "r" && c1 === "b" && (c2 === '"' || c2 === "'")) {
      this.advance();
      this.advance();
      this.emit("bytes", this.scanString(true, true), line, col);
      return;
    }
    const src = this.src;
    let word = "";
    while (this.peek() !== "" && isIdentPart(String.fromCodePoint(src.codePointAt(this.pos)!))) {
      word += this.advance();
    }
    if (KEYWORDS.has(word)) this.emit(word, word, line, col);
    else if (RESERVED.has(word)) this.emit("illegal", word, line, col);
    else this.emit("ident", utf8Encode(word), line, col);
  }

  /** Brackets (tracking depth) and operators, longest match first. */
  private scanPunctuation(c: string, line: number, col: number): void {
    if (c === "(" || c === "[" || c === "{") {
      this.depth++;
      this.advance();
      this.emit(c, null, line, col);
      return;
    }
    if (c === ")" || c === "]" || c === "}") {
      if (this.depth === 0) this.error(`unexpected '${c}'`);
      this.depth--;
      this.advance();
      this.emit(c, null, line, col);
      return;
    }
    const three = this.src.slice(this.pos, this.pos + 3);
    if (PUNCT3.includes(three)) {
      this.advance();
      this.advance();
      this.advance();
      this.emit(three, null, line, col);
      return;
    }
    const two = this.src.slice(this.pos, this.pos + 2);
    if (PUNCT2.includes(two)) {
      this.advance();
      this.advance();
      this.emit(two, null, line, col);
      return;
    }
    if (c === "!") this.error("unexpected input character '!'");
    if (PUNCT1.includes(c)) {
      this.advance();
      this.emit(c, null, line, col);
      return;
    }
    this.error(`unexpected input character ${JSON.stringify(c)}`);
  }

  /** Advance past the digits that `isDigitOf` accepts. */
  private skipDigits(isDigitOf: (c: string) => boolean): void {
    while (isDigitOf(this.peek())) this.advance();
  }

  /** An int (decimal, 0x, 0o, 0b) or float literal starting at (line, col). */
  private scanNumber(line: number, col: number): void {
    const start = this.pos;
    let isFloat = false;
    const c = this.peek();
    const c1 = this.peek(1).toLowerCase();
    if (c === "0" && (c1 === "x" || c1 === "o" || c1 === "b")) {
      this.advance();
      this.advance();
      const isDigitOf = c1 === "x" ? isHexDigit : c1 === "o" ? isOctalDigit : isBinaryDigit;
      if (!isDigitOf(this.peek())) {
        if (c1 === "x") this.error("invalid hex literal", line, col);
        this.error(c1 === "o" ? "invalid octal literal" : "invalid binary literal");
      }
      this.skipDigits(isDigitOf);
    } else {
      this.skipDigits(isDigit);
      if (this.peek() === ".") {
        isFloat = true;
        this.advance();
        this.skipDigits(isDigit);
      }
      if (this.peek() === "e" || this.peek() === "E") {
        isFloat = true;
        this.advance();
        if (this.peek() === "+" || this.peek() === "-") {
          this.advance();
          if (!isDigit(this.peek())) this.error("invalid float literal");
        }
        this.skipDigits(isDigit);
      }
    }
    const raw = this.src.slice(start, this.pos);
    if (isFloat) {
      const f = Number(raw);
      if (!Number.isFinite(f)) this.error("invalid float literal"); // as strconv.ParseFloat
      this.emit("float", f, line, col);
      return;
    }
    if (raw.length > 1 && raw[0] === "0" && isDigit(raw[1]) && !/^0+$/.test(raw)) {
      if (/^[0-7]+$/.test(raw)) this.error(`obsolete form of octal literal; use 0o${raw.slice(1)}`);
      this.error("invalid int literal", line, col);
    }
    const big = BigInt(raw);
    const n = Number(big);
    this.emit("int", Number.isSafeInteger(n) ? n : big, line, col);
  }

  /**
   * A quoted literal, the read position on its opening quote (after any prefix). Returns its
   * value as a byte string (one char per byte).
   */
  private scanString(raw: boolean, isBytes: boolean): string {
    // errors about the literal as a whole point at its start (prefix included)
    const startLine = this.line, startCol = this.col - (raw || isBytes ? 1 : 0);
    const quote = this.peek();
    const triple = this.peek(1) === quote && this.peek(2) === quote;
    this.advance();
    if (triple) {
      this.advance();
      this.advance();
    }
    const text = new LiteralText();
    // starlark-go finds the end of the literal first, then unquotes it: an escape error is
    // reported only when the literal is properly terminated
    for (;;) {
      if (this.pos >= this.src.length) this.error("unexpected EOF in string", startLine, startCol);
      const ch = this.peek();
      if (ch === quote) {
        if (!triple) {
          this.advance();
          break;
        }
        if (this.peek(1) === quote && this.peek(2) === quote) {
          this.advance();
          this.advance();
          this.advance();
          break;
        }
        text.addText(this.advance());
        continue;
      }
      if (ch === "\n" && !triple) {
        this.error("unexpected newline in string", startLine, startCol);
      }
      if (ch !== "\\") {
        text.addText(this.advance());
        continue;
      }
      this.advance();
      if (this.pos >= this.src.length) this.error("unexpected EOF in string", startLine, startCol);
      if (raw) this.scanRawEscape(text);
      else this.scanEscape(text, quote, triple);
    }
    if (text.escapeError !== null) this.error(text.escapeError, startLine, startCol);
    return text.finish();
  }

  /** After a backslash in a raw literal: the backslash stays; it only shields the quote. */
  private scanRawEscape(text: LiteralText): void {
    text.addText("\\");
    text.addText(this.advance());
  }

  /** After a backslash in a non-raw literal: decode one escape sequence. */
  private scanEscape(text: LiteralText, quote: string, triple: boolean): void {
    const e = this.peek();
    if (e === "\n") {
      this.advance();
      return;
    }
    const simple = SIMPLE_ESCAPES.get(e);
    if (simple !== undefined) {
      this.advance();
      text.addText(simple);
      return;
    }
    if (isOctalDigit(e)) {
      let n = 0, k = 0, digits = "";
      while (k < 3 && isOctalDigit(this.peek())) {
        digits += this.peek();
        n = n * 8 + Number(this.advance());
        k++;
      }
      if (n >= 256) text.badEscape(`invalid escape sequence \\${digits}`);
      text.addByte(n);
      return;
    }
    if (e === "x") {
      this.advance();
      const hex = this.src.slice(this.pos, this.pos + 2);
      if (!HEX_PAIR.test(hex)) {
        // starlark-go unquotes the body (closing quote excluded), byte-wise
        const rest = utf8Encode("\\x" + this.literalBodyRest(quote, triple));
        text.badEscape(
          rest.length < 4
            ? `truncated escape sequence ${rest}`
            : `invalid escape sequence ${rest.slice(0, 4)}`,
        );
        return;
      }
      this.advance();
      this.advance();
      // starlark-go allows \x80-\xff in strings too (raw bytes)
      text.addByte(parseInt(hex, 16));
      return;
    }
    if (e === "u" || e === "U") {
      this.advance();
      const len = e === "u" ? 4 : 8;
      const hex = this.src.slice(this.pos, this.pos + len);
      if (!(len === 4 ? HEX_4 : HEX_8).test(hex)) {
        text.badEscape(`truncated escape sequence \\${e}${hex}`);
        return;
      }
      for (let k = 0; k < len; k++) this.advance();
      const n = parseInt(hex, 16);
      if (n > 0x10ffff || (n >= 0xd800 && n < 0xe000)) {
        text.badEscape(`invalid Unicode code point U+${hex}`);
        return;
      }
      text.addText(String.fromCodePoint(n));
      return;
    }
    text.badEscape(`invalid escape sequence \\${e}`);
    this.advance();
  }

  /** Source text from here to the end of the literal's body (without the closing quote). */
  private literalBodyRest(quote: string, triple: boolean): string {
    const src = this.src;
    let k = this.pos;
    while (k < src.length) {
      if (src[k] === "\\") k += 2;
      else if (
        triple ? src.startsWith(quote + quote + quote, k) : src[k] === quote || src[k] === "\n"
      ) {
        break;
      } else k++;
    }
    return src.slice(this.pos, Math.min(k, src.length));
  }
}
