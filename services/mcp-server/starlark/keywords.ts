/**
 * The language's keywords and reserved words, without the interpreter: the host's capability
 * names are checked against them in the main thread, which never runs Starlark.
 *
 * @module
 */
export { KEYWORDS, RESERVED } from "./syntax/scanner.ts";
