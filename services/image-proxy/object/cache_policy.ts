/**
 * Default `Cache-Control` by path class (docs/image-proxy.md#cache-headers-by-path-class): the
 * catalog (`streams/v1/*.json`, changes on every mirror sync) and the artifacts (`images/**`,
 * pinned by SHA-256 in the catalog, never changed under one path) each get a default, used only
 * when the stored object carries neither `Cache-Control` nor `Expires`.
 *
 * Patterns are matched against the object path under the prefix (`streams/v1/index.json`): `*`
 * matches within one segment, a `**` segment any number (≥ 1 at the end, ≥ 0 elsewhere) of whole
 * segments, everything else itself.
 *
 * @module
 */
import type { ObjectMeta } from "../store/store.ts";

/** One path class: the patterns that select it and the `Cache-Control` it gets. */
export interface CacheClass {
  patterns: readonly string[];
  /** The default `Cache-Control`; empty: the class gets none. */
  control: string;
}

/** The classes, catalog first: a path both select is a catalog path. */
export interface CachePolicy {
  catalog: CacheClass;
  artifact: CacheClass;
}

/** The path class of an object path, or `undefined` when no pattern selects it. */
export type PathClass = "catalog" | "artifact";

/**
 * Why a pattern is not acceptable, or `undefined`. Never quotes the pattern.
 *
 * @example Usage
 * ```ts
 * import { patternProblem } from "./cache_policy.ts";
 * patternProblem("streams/v1/*.json"); // undefined
 * patternProblem("/streams"); // "a pattern must not start or end with /, nor hold an empty segment"
 * ```
 */
export function patternProblem(pattern: string): string | undefined {
  if (pattern === "") return "a pattern must not be empty";
  const segments = pattern.split("/");
  if (segments.some((s) => s === "")) {
    return "a pattern must not start or end with /, nor hold an empty segment";
  }
  if (segments.some((s) => s === "." || s === "..")) {
    return "a pattern must not hold a . or .. segment";
  }
  if (segments.some((s) => s !== "**" && s.includes("**"))) {
    return "** must be a whole segment";
  }
  // deno-lint-ignore no-control-regex -- matching control characters is the point
  if (/[\u0000-\u001f\u007f-\u009f?#\\]/.test(pattern)) {
    return "a pattern must not hold control characters, ?, # or \\";
  }
  return undefined;
}

// RFC 9111 §5.2: directive = token [ "=" ( token / quoted-string ) ], comma-separated.
const TOKEN = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]+";
const QUOTED = '"(?:[^"\\\\\\u0000-\\u001f\\u007f]|\\\\[\\u0020-\\u007e])*"';
const DIRECTIVE = `${TOKEN}(?:=(?:${TOKEN}|${QUOTED}))?`;
const CACHE_CONTROL = new RegExp(`^${DIRECTIVE}(?:[ \\t]*,[ \\t]*${DIRECTIVE})*$`);

/**
 * Why a `Cache-Control` value is not acceptable (not RFC 9111 directives), or `undefined`; empty
 * is acceptable (no default). Never quotes the value.
 *
 * @example Usage
 * ```ts
 * import { cacheControlProblem } from "./cache_policy.ts";
 * cacheControlProblem("public, max-age=60"); // undefined
 * cacheControlProblem("max-age=60\r\nX: y"); // "expected Cache-Control directives such as public, max-age=60"
 * ```
 */
export function cacheControlProblem(value: string): string | undefined {
  if (value === "" || CACHE_CONTROL.test(value)) return undefined;
  return "expected Cache-Control directives such as public, max-age=60";
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The regular expression of a pattern (checked with {@linkcode patternProblem} first).
 *
 * @example Usage
 * ```ts
 * import { patternRegExp } from "./cache_policy.ts";
 * patternRegExp("images/**").test("images/a/b.tar.xz"); // true
 * ```
 */
export function patternRegExp(pattern: string): RegExp {
  const segments = pattern.split("/");
  let source = "";
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    if (segment === "**") source += last ? "[^/]+(?:/[^/]+)*" : "(?:[^/]+/)*";
    else source += segment.split("*").map(escape).join("[^/]*") + (last ? "" : "/");
  });
  return new RegExp(`^${source}$`);
}

/** What {@linkcode createCacheDefaults} returns. */
export interface CacheDefaults {
  /** The class of an object path under the prefix (no leading `/`). */
  classOf(path: string): PathClass | undefined;
  /**
   * The metadata with the class's default `Cache-Control` filled in when it carries neither
   * `Cache-Control` nor `Expires` (an object's own caching fields always win).
   */
  apply(meta: ObjectMeta, path: string): ObjectMeta;
}

/**
 * Compiles a {@linkcode CachePolicy}.
 *
 * @example Usage
 * ```ts
 * import { createCacheDefaults } from "./cache_policy.ts";
 * const defaults = createCacheDefaults({
 *   catalog: { patterns: ["streams/v1/*.json"], control: "public, max-age=60" },
 *   artifact: { patterns: ["images/**"], control: "public, max-age=31536000, immutable" },
 * });
 * defaults.apply({ size: 1 }, "streams/v1/index.json").cacheControl; // "public, max-age=60"
 * ```
 * @throws {TypeError} for a pattern {@linkcode patternProblem} refuses.
 */
export function createCacheDefaults(policy: CachePolicy): CacheDefaults {
  const compile = (c: CacheClass) =>
    c.patterns.map((p) => {
      const problem = patternProblem(p);
      if (problem) throw new TypeError(`Cannot compile cache pattern: ${problem}`);
      return patternRegExp(p);
    });
  const catalog = compile(policy.catalog);
  const artifact = compile(policy.artifact);
  const classOf = (path: string): PathClass | undefined =>
    catalog.some((r) => r.test(path))
      ? "catalog"
      : artifact.some((r) => r.test(path))
      ? "artifact"
      : undefined;
  return {
    classOf,
    apply(meta, path) {
      if (meta.cacheControl || meta.expires) return meta;
      const kind = classOf(path);
      const control = kind && policy[kind].control;
      return control ? { ...meta, cacheControl: control } : meta;
    },
  };
}
