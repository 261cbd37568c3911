/**
 * The language's keywords and reserved words, without the interpreter: the host's capability
 * names are checked against them in the main thread, which never runs Starlark. A leaf module (the
 * scanner imports it): the main thread gets them without the scanner, the values and `node:v8`.
 *
 * @module
 */
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
