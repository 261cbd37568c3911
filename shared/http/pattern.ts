/**
 * Matching of `URLPattern` pathnames for the route table. `URLPattern.exec` costs a few
 * microseconds per pattern in Deno 2.9, which a table of twenty routes would pay on every request;
 * the common pathname patterns (literal text, `:name` segments, `*`) are compiled to one anchored
 * `RegExp` that gives the same groups. Anything else (regexp groups, modifiers, `{…}` groups, or
 * a pattern that also constrains host, port or search) is matched by `URLPattern` itself.
 * `pattern_test.ts` checks that both ways agree.
 * @module
 */

/** Named groups of a matching pathname, or `undefined` when the URL does not match. */
export type PathMatcher = (url: URL) => Record<string, string | undefined> | undefined;

const NAME = /^:([\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*)/u;
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
      const name = NAME.exec(pathname.slice(i));
      if (!name) return undefined;
      i += name[0].length;
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

/** A matcher for `pattern`: the compiled `RegExp` where possible, else `URLPattern.exec`. */
export function compilePathname(pattern: URLPattern): PathMatcher {
  const fast = OTHER_COMPONENTS.every((c) => pattern[c as keyof URLPattern] === "*")
    ? fastPathname(pattern.pathname)
    : undefined;
  if (!fast) {
    return (url) => pattern.exec(url.href)?.pathname.groups;
  }
  const { regexp, names } = fast;
  if (names.length === 0) {
    const literal = pattern.pathname;
    return (url) => url.pathname === literal ? {} : undefined;
  }
  return (url) => {
    const m = regexp.exec(url.pathname);
    if (!m) return undefined;
    const groups: Record<string, string> = {};
    for (let i = 0; i < names.length; i++) groups[names[i]] = m[i + 1];
    return groups;
  };
}

const GROUP = /:([\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*)(\((?:\\.|[^)])*\))?[?+*]?/gu;

/** `/v1/todos/:id` → `/v1/todos/{id}`: the route label of a pathname pattern. */
export function labelOfPathname(pathname: string): string {
  return pathname.replace(GROUP, "{$1}");
}

/** The OpenAPI path template of a pathname pattern (same form as the label). */
export function openapiPathOf(pathname: string): string {
  return labelOfPathname(pathname);
}
