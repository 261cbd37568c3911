import assert from "node:assert/strict";
import {
  cacheControlProblem,
  createCacheDefaults,
  patternProblem,
  patternRegExp,
} from "./cache_policy.ts";

Deno.test("patternRegExp: * stays in one segment, ** spans whole segments", () => {
  const cases: [string, string, boolean][] = [
    ["streams/v1/*.json", "streams/v1/index.json", true],
    ["streams/v1/*.json", "streams/v1/images.json", true],
    ["streams/v1/*.json", "streams/v1/a/index.json", false],
    ["streams/v1/*.json", "streams/v1/index.json.gz", false],
    ["streams/v1/*.json", "streams/v1xindex.json", false],
    ["streams/v1/*.json", "x/streams/v1/index.json", false],
    ["images/**", "images/a", true],
    ["images/**", "images/a/b/c.tar.xz", true],
    ["images/**", "images", false], // at the end, ** needs one segment at least
    ["images/**", "imagesx/a", false],
    ["a/**/b", "a/b", true], // elsewhere, zero segments
    ["a/**/b", "a/x/y/b", true],
    ["a/**/b", "a/x/yb", false],
    ["**/*.json", "index.json", true],
    ["**/*.json", "a/b/index.json", true],
    ["**", "anything/at/all", true],
    ["a.b", "aXb", false], // regular-expression characters are literal
    ["(x)+", "(x)+", true],
  ];
  for (const [pattern, path, expected] of cases) {
    assert.equal(patternRegExp(pattern).test(path), expected, `${pattern} ~ ${path}`);
  }
});

Deno.test("patternProblem names each refused spelling without quoting it", () => {
  assert.equal(patternProblem("streams/v1/*.json"), undefined);
  assert.equal(patternProblem("images/**"), undefined);
  assert.equal(patternProblem("a:b/c@d"), undefined);
  assert.equal(patternProblem(""), "a pattern must not be empty");
  const slash = "a pattern must not start or end with /, nor hold an empty segment";
  for (const p of ["/images/**", "images/", "a//b"]) assert.equal(patternProblem(p), slash, p);
  for (const p of ["..", "a/../b", "./a", "a/."]) {
    assert.equal(patternProblem(p), "a pattern must not hold a . or .. segment", p);
  }
  for (const p of ["a**", "**b/c", "a/***"]) {
    assert.equal(patternProblem(p), "** must be a whole segment", p);
  }
  for (const p of ["a\nb", "a\u0000", "a?b", "a#b", "a\\b", "a\u0085"]) {
    assert.equal(
      patternProblem(p),
      "a pattern must not hold control characters, ?, # or \\",
      JSON.stringify(p),
    );
  }
});

Deno.test("cacheControlProblem accepts RFC 9111 directives and empty, nothing else", () => {
  for (
    const ok of [
      "",
      "no-cache",
      "public, max-age=60, must-revalidate",
      "public,max-age=31536000,immutable",
      'private="set-cookie", max-age=0',
    ]
  ) assert.equal(cacheControlProblem(ok), undefined, ok);
  for (
    const bad of [
      "max-age=60\r\nX-Injected: 1",
      "public,",
      ", public",
      "max-age=",
      "a b",
      'private="unterminated',
      "publ\u00efc",
    ]
  ) {
    assert.equal(
      cacheControlProblem(bad),
      "expected Cache-Control directives such as public, max-age=60",
      JSON.stringify(bad),
    );
  }
});

Deno.test("createCacheDefaults: the class default only when the object has no caching fields", () => {
  const defaults = createCacheDefaults({
    catalog: { patterns: ["streams/v1/*.json"], control: "public, max-age=60" },
    artifact: { patterns: ["**/*.json", "images/**"], control: "immutable" },
  });
  assert.equal(defaults.classOf("streams/v1/index.json"), "catalog"); // both select it
  assert.equal(defaults.classOf("images/a/rootfs.squashfs"), "artifact");
  assert.equal(defaults.classOf("other/file"), undefined);
  assert.equal(
    defaults.apply({ size: 1 }, "streams/v1/index.json").cacheControl,
    "public, max-age=60",
  );
  assert.equal(defaults.apply({ size: 1 }, "images/a/b").cacheControl, "immutable");
  assert.equal(defaults.apply({ size: 1 }, "other/file").cacheControl, undefined);
  const own = { size: 1, cacheControl: "no-cache" };
  assert.equal(defaults.apply(own, "images/a/b"), own);
  const expires = { size: 1, expires: "Thu, 01 Jan 2099 00:00:00 GMT" };
  assert.equal(defaults.apply(expires, "images/a/b"), expires);
  // An empty stored value counts as none.
  assert.equal(
    defaults.apply({ size: 1, cacheControl: "" }, "images/a/b").cacheControl,
    "immutable",
  );
});

Deno.test("createCacheDefaults: an empty control turns its class off; a bad pattern is refused", () => {
  const off = createCacheDefaults({
    catalog: { patterns: ["streams/v1/*.json"], control: "" },
    artifact: { patterns: ["**"], control: "immutable" },
  });
  // The catalog class still claims the path, so the artifact default does not reach it.
  assert.equal(off.apply({ size: 1 }, "streams/v1/index.json").cacheControl, undefined);
  assert.throws(
    () =>
      createCacheDefaults({
        catalog: { patterns: ["/x"], control: "" },
        artifact: { patterns: [], control: "" },
      }),
    /^TypeError: Cannot compile cache pattern: a pattern must not start or end with \//,
  );
});
