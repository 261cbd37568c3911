/**
 * Matching of `URLPattern` pathnames for the route table. `URLPattern.exec` costs a few
 * microseconds per pattern in Deno 2.9, which a table of twenty routes would pay on every request;
 * the common pathname patterns (literal text, `:name` segments, `/:name+` runs of whole segments,
 * `*`) are compiled to one anchored
 * `RegExp` that gives the same groups. Anything else (regexp groups, modifiers, `{…}` groups, or
 * a pattern that also constrains host, port or search) is matched by `URLPattern` itself.
 * `pattern_test.ts` checks that both ways agree.
 * @module
 */

/**
 * Named groups of a matching pathname, or `undefined` when the URL does not match. `pathname`
 * is `url.pathname` read once by the caller (each read of the getter makes a new string).
 */
export type PathMatcher = (
  url: URL,
  pathname?: string,
) => Record<string, string | undefined> | undefined;

const NAME = /^:([\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*)/u;
// The ASCII names of route tables match without compiling NAME's Unicode property classes
// (≈ 0.5 ms at a start). On ASCII text both give the same match (an ASCII name is followed by a
// character that cannot continue it, or the end); text with anything else goes to NAME.
const ASCII_NAME = /^:([A-Za-z$_][A-Za-z0-9$_]*)(?![A-Za-z0-9$_])/;
const NON_ASCII = /[\u0080-\uffff]/;

/** `NAME.exec(text)`, by way of {@linkcode ASCII_NAME} when the text is ASCII. */
function nameAt(text: string): RegExpExecArray | null {
  return NON_ASCII.test(text) ? NAME.exec(text) : ASCII_NAME.exec(text);
}
const SPECIAL = "(){}?+\\";
const OTHER_COMPONENTS = ["protocol", "username", "password", "hostname", "port", "search", "hash"];

/** The fast `RegExp` form of a pathname pattern, or `undefined` when it needs `URLPattern`. */
export function fastPathname(pathname: string): { regexp: RegExp; names: string[] } | undefined {
  let source = "^";
  const names: string[] = [];
  let wildcards = 0;
  for (let i = 0; i < pathname.length;) {
    const c = pathname[i];
    if (c === ":") {
      const name = nameAt(pathname.slice(i));
      if (!name) return undefined;
      i += name[0].length;
      // `/:name+` followed by `/` or the end: one or more whole segments, as URLPattern has it.
      if (pathname[i] === "+" && pathname[i - name[0].length - 1] === "/") {
        if (i + 1 < pathname.length && pathname[i + 1] !== "/") return undefined;
        i++;
        names.push(name[1]);
        source += "([^/]+?(?:\\/[^/]+?)*)";
        continue;
      }
      if (i < pathname.length && "(?+*".includes(pathname[i])) return undefined;
      names.push(name[1]);
      source += "([^/]+?)";
    } else if (c === "*") {
      names.push(String(wildcards++));
      source += "(.*)";
      i++;
    } else if (SPECIAL.includes(c)) {
      return undefined;
    } else {
      source += c.replace(/[.^$|[\]\/]/g, "\\$&");
      i++;
    }
  }
  return { regexp: new RegExp(source + "$", "u"), names };
}

/**
 * The text every pathname matching `pathname` starts with: the pattern up to its first group,
 * wildcard, modifier or escape, without a final `/` (which URLPattern makes part of the group
 * after it, optional when that group is).
 */
export function literalPrefix(pathname: string): string {
  let i = 0;
  while (i < pathname.length && !":*(){}?+\\".includes(pathname[i])) i++;
  const prefix = pathname.slice(0, i);
  return i < pathname.length && prefix.endsWith("/") ? prefix.slice(0, -1) : prefix;
}

/**
 * A matcher for `pattern`: the compiled `RegExp` where possible, else `URLPattern.exec`. With
 * `caseSensitive` (a pattern made from a pathname string, as the route table makes them), a
 * pattern left to `URLPattern` is first checked against its literal prefix, so the paths it
 * cannot match (every other route's) do not pay for `exec`.
 */
export function compilePathname(
  pattern: URLPattern,
  options: { caseSensitive?: boolean } = {},
): PathMatcher {
  const pathOnly = OTHER_COMPONENTS.every((c) => pattern[c as keyof URLPattern] === "*");
  const fast = pathOnly ? fastPathname(pattern.pathname) : undefined;
  if (!fast) {
    const prefix = pathOnly && options.caseSensitive ? literalPrefix(pattern.pathname) : "";
    return (url, pathname = url.pathname) =>
      pathname.startsWith(prefix) ? pattern.exec(url.href)?.pathname.groups : undefined;
  }
  return fastMatcher(pattern.pathname, fast);
}

/**
 * The matcher of a pathname pattern string that needs no `URLPattern` at all: one in the fast
 * form whose characters `URLPattern` keeps as written (ASCII path characters, no `.`/`..` segment),
 * or `undefined`. Constructing a `URLPattern` costs ≈ 0.4 ms in Deno 2.9 (7 ms for the first), a
 * route table's worth of them tens of ms at every start.
 */
export function plainPathname(pathname: string): PathMatcher | undefined {
  const plain = pathname.includes("+") ? pathname.replace(REPEATED_SEGMENTS, "") : pathname;
  if (!PLAIN.test(plain) || DOT_SEGMENT.test(pathname)) return undefined;
  const fast = fastPathname(pathname);
  return fast && fastMatcher(pathname, fast);
}

const PLAIN = /^\/[A-Za-z0-9\-._~!$&'*,;=:@/]*$/;
// A `+` that makes a `/:name` group repeat (`/:issuer+/token`) is pattern syntax, not a path
// character: the fast form compiles it.
const REPEATED_SEGMENTS = /(?<=\/:[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*)\+(?=\/|$)/gu;
const DOT_SEGMENT = /\/\.\.?(\/|$)/;

/** The groups of a static pathname: one frozen object for every match (nothing to allocate). */
const NO_GROUPS: Record<string, string | undefined> = Object.freeze({});

function fastMatcher(literal: string, fast: { regexp: RegExp; names: string[] }): PathMatcher {
  const { regexp, names } = fast;
  if (names.length === 0) {
    return (url, pathname = url.pathname) => pathname === literal ? NO_GROUPS : undefined;
  }
  return (url, pathname = url.pathname) => {
    const m = regexp.exec(pathname);
    if (!m) return undefined;
    const groups: Record<string, string> = {};
    for (let i = 0; i < names.length; i++) groups[names[i]] = m[i + 1];
    return groups;
  };
}

const GROUP = /:([\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*)(\((?:\\.|[^)])*\))?[?+*]?/gu;
// GROUP on ASCII text, without its Unicode property classes to compile (see ASCII_NAME).
const ASCII_GROUP = /:([A-Za-z$_][A-Za-z0-9$_]*)(\((?:\\.|[^)])*\))?[?+*]?/g;

/** `/v1/todos/:id` → `/v1/todos/{id}`: the route label of a pathname pattern. */
export function labelOfPathname(pathname: string): string {
  return pathname.replace(NON_ASCII.test(pathname) ? GROUP : ASCII_GROUP, "{$1}");
}

/** The OpenAPI path template of a pathname pattern (same form as the label). */
export function openapiPathOf(pathname: string): string {
  return labelOfPathname(pathname);
}
