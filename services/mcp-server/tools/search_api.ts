/**
 * search_api: normalize the query, rank enabled capabilities, and pack the highest-ranked prefix
 * under the result-count and structured-response byte bounds.
 * @module
 */
import type { CapabilityRegistry } from "../capabilities/registry.ts";
import type { Limits } from "../limits.ts";
import { SearchIndex } from "../search/index.ts";
import { normalizeQuery, QueryLimitError, trimWhiteSpace } from "../search/tokens.ts";
import { ErrorText, ToolError } from "./errors.ts";

/** One search result. */
export interface SearchResult {
  name: string;
  signature: string;
  summary: string;
}

/** search_api's structured output. */
export interface SearchOutput {
  results: SearchResult[];
  truncated: boolean;
}

const enc = new TextEncoder();
const byteLength = (text: string) => enc.encode(text).length;

/** Creates the search function over a registry; the index is rebuilt when visibility changes. */
export function createSearch(
  registry: CapabilityRegistry,
  limits: Pick<Limits, "maxQueryBytes" | "maxSearchResults" | "maxSearchResponseBytes">,
): (query: string) => SearchOutput {
  let index: SearchIndex | undefined;
  let version = -1;
  return function search(query: string): SearchOutput {
    let tokens: string[];
    try {
      tokens = normalizeQuery(query, limits.maxQueryBytes);
    } catch (err) {
      if (err instanceof QueryLimitError) throw new ToolError(ErrorText.resourceLimit);
      throw err;
    }
    if (tokens.length === 0) return { results: [], truncated: false };
    if (!index || version !== registry.version) {
      version = registry.version;
      index = new SearchIndex(registry.enabled());
    }
    const ranked = index.rank(tokens, trimWhiteSpace(query));
    return pack(ranked.map((entry) => entry.capability), limits);
  };
}

function pack(
  caps: readonly SearchResult[],
  limits: Pick<Limits, "maxSearchResults" | "maxSearchResponseBytes">,
): SearchOutput {
  // {"results":[ ... ],"truncated":true|false}
  const frame = byteLength('{"results":[],"truncated":}');
  const results: SearchResult[] = [];
  let itemBytes = 0;
  for (const cap of caps) {
    if (results.length >= limits.maxSearchResults) break;
    const item = { name: cap.name, signature: cap.signature, summary: cap.summary };
    const add = byteLength(JSON.stringify(item)) + (results.length > 0 ? 1 : 0);
    const last = results.length + 1 === caps.length;
    const total = frame + itemBytes + add + (last ? 5 : 4);
    if (total > limits.maxSearchResponseBytes) break;
    results.push(item);
    itemBytes += add;
  }
  return { results, truncated: results.length < caps.length };
}
