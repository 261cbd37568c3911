/**
 * Entity tags and entity-tag lists (RFC 9110 §8.8.3, §13.1.1–2), with the strong and weak
 * comparisons the conditional headers use.
 *
 * @module
 */

/** One entity tag: `opaque` keeps its quotes, as on the wire. */
export interface EntityTag {
  weak: boolean;
  opaque: string;
}

// entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE ; etagc = %x21 / %x23-7E / obs-text
const TAG = /^(W\/)?("[\x21\x23-\x7e\x80-\xff]*")/;

/**
 * Parses a single entity tag (the whole value), or returns `null`.
 *
 * @example Usage
 * ```ts
 * import { parseEntityTag } from "./etag.ts";
 * parseEntityTag('W/"abc"'); // { weak: true, opaque: '"abc"' }
 * parseEntityTag("abc"); // null
 * ```
 */
export function parseEntityTag(value: string): EntityTag | null {
  const m = TAG.exec(value);
  if (!m || m[0].length !== value.length) return null;
  return { weak: m[1] !== undefined, opaque: m[2] };
}

/**
 * Parses the value of `If-Match` / `If-None-Match`: `"*"` or a list of entity tags (empty list
 * elements are allowed, as RFC 9110 §5.6.1 asks of recipients). `null` when malformed.
 *
 * @example Usage
 * ```ts
 * import { parseEntityTagList } from "./etag.ts";
 * parseEntityTagList('"a", W/"b"'); // [{ weak: false, opaque: '"a"' }, { weak: true, opaque: '"b"' }]
 * parseEntityTagList("*"); // "*"
 * parseEntityTagList("a, b"); // null
 * ```
 */
export function parseEntityTagList(value: string): "*" | EntityTag[] | null {
  const trimmed = value.replace(/^[ \t]+|[ \t]+$/g, "");
  if (trimmed === "*") return "*";
  const tags: EntityTag[] = [];
  let rest = trimmed;
  for (;;) {
    rest = rest.replace(/^[ \t,]+/, ""); // OWS and empty list elements
    if (rest === "") break;
    const m = TAG.exec(rest);
    if (!m) return null;
    tags.push({ weak: m[1] !== undefined, opaque: m[2] });
    rest = rest.slice(m[0].length).replace(/^[ \t]+/, "");
    if (rest !== "" && rest[0] !== ",") return null;
  }
  return tags.length > 0 ? tags : null;
}

/**
 * Strong comparison: both tags strong and their opaque parts equal.
 *
 * @example Usage
 * ```ts
 * import { strongMatch } from "./etag.ts";
 * strongMatch({ weak: false, opaque: '"a"' }, '"a"'); // true
 * strongMatch({ weak: true, opaque: '"a"' }, '"a"'); // false
 * ```
 */
export function strongMatch(tag: EntityTag, current: string): boolean {
  const cur = parseEntityTag(current);
  return cur !== null && !tag.weak && !cur.weak && tag.opaque === cur.opaque;
}

/**
 * Weak comparison: opaque parts equal, whatever the weakness.
 *
 * @example Usage
 * ```ts
 * import { weakMatch } from "./etag.ts";
 * weakMatch({ weak: true, opaque: '"a"' }, '"a"'); // true
 * ```
 */
export function weakMatch(tag: EntityTag, current: string): boolean {
  const cur = parseEntityTag(current);
  return cur !== null && tag.opaque === cur.opaque;
}
