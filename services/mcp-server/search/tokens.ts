/**
 * Search-query and capability-text tokenization (docs/mcp-server.md#search_api): every rune that is
 * not a Unicode letter or digit separates tokens; camel-case, acronym-to-word and letter/number
 * transitions split; tokens are lowercased. Query normalization also trims, drops connector words,
 * dedupes and enforces the byte and token bounds.
 * @module
 */

/** Connector tokens removed from queries. */
const CONNECTORS: ReadonlySet<string> = new Set([
  "a",
  "an",
  "and",
  "by",
  "for",
  "from",
  "in",
  "of",
  "on",
  "or",
  "the",
  "to",
  "with",
]); // deno-fmt-ignore

/** Most distinct normalized tokens a query may have. */
export const MAX_QUERY_TOKENS = 16;

const RUN = /[\p{L}\p{Nd}]+/gu;
const UPPER = /[\p{Lu}\p{Lt}]/u;
const DIGIT = /\p{Nd}/u;

type Cls = "U" | "L" | "D";

function cls(ch: string): Cls {
  if (DIGIT.test(ch)) return "D";
  return UPPER.test(ch) ? "U" : "L";
}

function splitRun(run: string, out: string[]): void {
  const chars = [...run];
  const kinds = chars.map(cls);
  let start = 0;
  for (let i = 1; i < chars.length; i++) {
    const prev = kinds[i - 1], cur = kinds[i];
    const letterDigit = (prev === "D") !== (cur === "D");
    const camel = prev === "L" && cur === "U";
    const acronym = prev === "U" && cur === "U" && kinds[i + 1] === "L";
    if (letterDigit || camel || acronym) {
      out.push(chars.slice(start, i).join("").toLowerCase());
      start = i;
    }
  }
  out.push(chars.slice(start).join("").toLowerCase());
}

/** All tokens of a text, in order, lowercased, duplicates kept. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const run of text.matchAll(RUN)) splitRun(run[0], out);
  return out;
}

const EDGE_WHITE_SPACE = /^\p{White_Space}+|\p{White_Space}+$/gu;

/**
 * Trims exactly Unicode White_Space from both ends. JavaScript's `trim()` differs: it leaves
 * U+0085 (NEXT LINE, White_Space) and strips U+FEFF (ZERO WIDTH NO-BREAK SPACE, not White_Space).
 */
export function trimWhiteSpace(text: string): string {
  return text.replace(EDGE_WHITE_SPACE, "");
}

/** The query bound was exceeded (maps to `resource limit exceeded`). */
export class QueryLimitError extends Error {
  /** Stable code (the client sees `resource limit exceeded`). */
  readonly code = "query_limit_exceeded";
  constructor(message: string) {
    super(message);
    this.name = "QueryLimitError";
  }
}

/**
 * Normalizes a raw query into its distinct, connector-free tokens.
 * @throws {QueryLimitError} when the raw query is over `maxBytes` UTF-8 bytes (checked before
 * trimming) or has more than 16 distinct tokens.
 */
export function normalizeQuery(raw: string, maxBytes: number): string[] {
  if (new TextEncoder().encode(raw).length > maxBytes) {
    throw new QueryLimitError(`query exceeds ${maxBytes} bytes`);
  }
  const tokens = [...new Set(tokenize(trimWhiteSpace(raw)).filter((tok) => !CONNECTORS.has(tok)))];
  if (tokens.length > MAX_QUERY_TOKENS) {
    throw new QueryLimitError(`query has more than ${MAX_QUERY_TOKENS} distinct tokens`);
  }
  return tokens;
}
