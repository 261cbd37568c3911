/**
 * Name rules of capabilities and fields: dotted capability names made of Starlark identifiers
 * whose first segment is not a reserved root, root input names that are Starlark identifiers, and
 * JSON tag names elsewhere (quoted in type strings when they are not identifiers).
 * @module
 */
import { KEYWORDS, RESERVED } from "@svc/starlark/keywords";

/** Starlark keywords and reserved words (not usable as identifiers), as the interpreter has them. */
export const STARLARK_KEYWORDS: ReadonlySet<string> = new Set([...KEYWORDS, ...RESERVED]);

/** Standard Starlark universe names plus the dialect's `sum`, `json`, `math` (and `set`). */
const RESERVED_ROOTS: ReadonlySet<string> = new Set([
  "None",
  "True",
  "False",
  "abs",
  "any",
  "all",
  "bool",
  "bytes",
  "chr",
  "dict",
  "dir",
  "enumerate",
  "fail",
  "float",
  "getattr",
  "hasattr",
  "hash",
  "int",
  "len",
  "list",
  "max",
  "min",
  "ord",
  "print",
  "range",
  "repr",
  "reversed",
  "set",
  "sorted",
  "str",
  "tuple",
  "type",
  "zip",
  "sum",
  "json",
  "math",
]); // deno-fmt-ignore

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** True for a lexical Starlark identifier (keywords included). */
function isIdentifier(name: string): boolean {
  return IDENT.test(name);
}

/** True for an identifier that is not a keyword: usable as a keyword argument. */
export function isKeywordArgName(name: string): boolean {
  return IDENT.test(name) && !STARLARK_KEYWORDS.has(name);
}

/**
 * A valid JSON tag name: non-empty, no quote, backslash, comma or control character (Go's
 * `encoding/json` tag rule allows letters, digits and most punctuation).
 */
export function isTagName(name: string): boolean {
  // deno-lint-ignore no-control-regex
  return name.length > 0 && !/["\\,\u0000-\u001f\u007f]/.test(name);
}

/** Why a capability name is unacceptable, or undefined when it is fine. */
export function capabilityNameProblem(name: string): string | undefined {
  const segments = name.split(".");
  if (segments.length < 2) return "must be a dotted name such as records.lookup";
  for (const seg of segments) {
    if (!isKeywordArgName(seg)) return `segment "${seg}" is not a Starlark identifier`;
  }
  if (RESERVED_ROOTS.has(segments[0])) return `root "${segments[0]}" is reserved`;
  return undefined;
}

/** A field name as it appears in a type string: quoted when it is not an identifier. */
export function typeStringName(name: string): string {
  return isIdentifier(name) ? name : JSON.stringify(name);
}
