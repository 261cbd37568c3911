/**
 * The ranked search over enabled capabilities: exact and (for query tokens of at least three
 * characters) prefix token matches against name, search terms, summary and description; rarer
 * tokens weigh more; eligibility by matched-token count; exact dotted-name queries first.
 * @module
 */
import type { Capability } from "../capabilities/registry.ts";
import { tokenize } from "./tokens.ts";

/** Field weights in precedence order: name, search terms, summary, description. */
const FIELD_WEIGHT = [8, 4, 2, 1];
const EXACT = 2;
const PREFIX = 1;

/** Matched tokens needed for a query of `queryTokens` distinct tokens. */
export function requiredMatches(queryTokens: number): number {
  return queryTokens <= 2 ? queryTokens : Math.ceil((2 * queryTokens) / 3);
}

/** An eligible capability with its relevance. */
export interface Ranked {
  capability: Capability;
  score: number;
  exactName: boolean;
}

/** An inverted index over one snapshot of the enabled capabilities. */
export class SearchIndex {
  readonly #caps: Capability[];
  /** token → capability index → best (lowest) field rank containing it */
  readonly #postings = new Map<string, Map<number, number>>();
  readonly #vocab: string[];

  constructor(caps: readonly Capability[]) {
    this.#caps = [...caps];
    this.#caps.forEach((cap, i) => {
      const fields = [cap.name, cap.searchTerms.join(" "), cap.summary, cap.description];
      fields.forEach((text, rank) => {
        for (const tok of tokenize(text)) {
          let post = this.#postings.get(tok);
          if (!post) this.#postings.set(tok, post = new Map());
          const had = post.get(i);
          if (had === undefined || rank < had) post.set(i, rank);
        }
      });
    });
    this.#vocab = [...this.#postings.keys()].sort();
  }

  /** Eligible capabilities for normalized `tokens`, in output order. */
  rank(tokens: readonly string[], trimmedQuery: string): Ranked[] {
    if (tokens.length === 0) return [];
    const count = this.#caps.length;
    const score = new Float64Array(count);
    const matched = new Uint8Array(count);
    for (const tok of tokens) {
      const best = this.#matches(tok);
      const idf = Math.log(1 + count / Math.max(1, best.size));
      for (const [i, weight] of best) {
        score[i] += weight * idf;
        matched[i]++;
      }
    }
    const need = requiredMatches(tokens.length);
    const lowered = trimmedQuery.toLowerCase();
    const out: Ranked[] = [];
    for (let i = 0; i < count; i++) {
      if (matched[i] < need) continue;
      const capability = this.#caps[i];
      out.push({
        capability,
        score: score[i],
        exactName: capability.name.toLowerCase() === lowered,
      });
    }
    return out.sort((a, b) =>
      Number(b.exactName) - Number(a.exactName) || b.score - a.score ||
      (a.capability.name < b.capability.name ? -1 : a.capability.name > b.capability.name ? 1 : 0)
    );
  }

  /** Strongest weight per capability for one query token (exact outranks prefix per field). */
  #matches(tok: string): Map<number, number> {
    const best = new Map<number, number>();
    const add = (post: Map<number, number> | undefined, factor: number) => {
      if (!post) return;
      for (const [i, rank] of post) {
        const weight = FIELD_WEIGHT[rank] * factor;
        if ((best.get(i) ?? 0) < weight) best.set(i, weight);
      }
    };
    add(this.#postings.get(tok), EXACT);
    if ([...tok].length >= 3) {
      for (let j = lowerBound(this.#vocab, tok); j < this.#vocab.length; j++) {
        const term = this.#vocab[j];
        if (!term.startsWith(tok)) break;
        if (term !== tok) add(this.#postings.get(term), PREFIX);
      }
    }
    return best;
  }
}

function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0, hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
