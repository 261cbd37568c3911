import assert from "node:assert/strict";
import {
  compilePathname,
  fastPathname,
  labelOfPathname,
  literalPrefix,
  plainPathname,
} from "./pattern.ts";

const PATTERNS = [
  "/healthz",
  "/v1/todos/:id",
  "/v1/todos/:id/complete",
  "/schemas/:name.json",
  "/docs/*",
  "/:issuer/.well-known/openid-configuration",
  "/.well-known/oauth-authorization-server/:issuer",
  "/static/:path+",
  "/_mock{/*}?",
  "/a/:x/:y",
  "/docs/:asset(a\\.css|b\\.js)",
  "/a/:x?",
  "/ab{c}?",
  "/ab/:x*",
  "/:issuer+/token",
  "/:issuer+/register/:client",
  "/:issuer+/.well-known/openid-configuration",
  "/.well-known/oauth-authorization-server/:issuer+",
  "/a/:x+b",
  "/a:x+/b",
  // Names past ASCII, and the ASCII name characters beyond letters.
  "/u/:café/x",
  "/u/:ab\u200Dc/x",
  "/u/:é",
  "/u/:$x_1",
];

const PATHS = [
  "/",
  "/healthz",
  "/healthz/",
  "/v1/todos/abc",
  "/v1/todos/",
  "/v1/todos/a/b",
  "/v1/todos/a%2Fb/complete",
  "/schemas/Todo.json",
  "/schemas/.json",
  "/schemas/a.b.json",
  "/docs",
  "/docs/",
  "/docs/x/y.css",
  "/docs/a.css",
  "/x/.well-known/openid-configuration",
  "/.well-known/oauth-authorization-server/x",
  "/.well-known/oauth-authorization-server/x/y",
  "/static/a/b",
  "/_mock",
  "/_mock/",
  "/_mock/x/y",
  "/_mockx",
  "/a/1/2",
  "/a/1/2/3",
  "/é/x",
  "/a/%E0%A4%A/2",
  "/a",
  "/ab",
  "/abc",
  "/ab/1/2",
  "/token",
  "//token",
  "/a/token",
  "/a/b/token",
  "/a//b/token",
  "/a/b/token/",
  "/a/token/token",
  "/a/register/token",
  "/a/b/register/c",
  "/a/b/register/c/d",
  "/realms/x/.well-known/openid-configuration",
  "/.well-known/oauth-authorization-server/a/b/c",
  "/a/xb",
  "/a/x/yb",
  "/ax/b",
  "/u/v/x",
  "/u/v",
  "/u/é/x",
];

Deno.test("compiled pathname matchers agree with URLPattern on every sample path", () => {
  for (const p of PATTERNS) {
    const pattern = new URLPattern({ pathname: p });
    const match = compilePathname(pattern, { caseSensitive: true });
    for (const path of PATHS) {
      const url = new URL(`http://h${path}`);
      assert.deepEqual(match(url), pattern.exec(url.href)?.pathname.groups, `${p} ${path}`);
    }
  }
});

Deno.test("fastPathname() compiles plain patterns and leaves the rest to URLPattern", () => {
  for (
    const p of ["/healthz", "/v1/todos/:id", "/schemas/:name.json", "/docs/*", "/static/:path+"]
  ) {
    assert.ok(fastPathname(p), p);
    assert.ok(plainPathname(p), p);
  }
  for (const p of ["/_mock{/*}?", "/a/:x(\\d+)", "/a/:x?", "/a/:x+b", "/a:x+/b", "/a/:1x"]) {
    assert.equal(fastPathname(p), undefined, p);
  }
});

Deno.test("a pattern that constrains more than the pathname is matched by URLPattern", () => {
  const match = compilePathname(new URLPattern({ hostname: "a.test", pathname: "/x" }));
  assert.deepEqual(match(new URL("http://a.test/x")), {});
  assert.equal(match(new URL("http://b.test/x")), undefined);
});

Deno.test("labelOfPathname() writes named groups as {name}", () => {
  assert.equal(labelOfPathname("/v1/todos/:id/complete"), "/v1/todos/{id}/complete");
  assert.equal(labelOfPathname("/schemas/:name.json"), "/schemas/{name}.json");
  assert.equal(labelOfPathname("/static/:path+"), "/static/{path}");
  assert.equal(labelOfPathname("/docs/:asset(a\\.css|b\\.js)"), "/docs/{asset}");
  assert.equal(labelOfPathname("/docs/*"), "/docs/*");
  assert.equal(labelOfPathname("/u/:café/x"), "/u/{café}/x");
  assert.equal(labelOfPathname("/u/:$x_1+"), "/u/{$x_1}");
});

Deno.test("literalPrefix() stops before the first group and leaves a group's `/` to it", () => {
  assert.equal(literalPrefix("/docs/:asset(a\\.css|b\\.js)"), "/docs");
  assert.equal(literalPrefix("/_mock{/*}?"), "/_mock");
  assert.equal(literalPrefix("/static/:path+"), "/static");
  assert.equal(literalPrefix("/a/:x?"), "/a");
  assert.equal(literalPrefix("/a\\.b/*"), "/a");
  assert.equal(literalPrefix("/plain"), "/plain");
  assert.equal(literalPrefix("*"), "");
  // the `/` before an optional group is optional too: "/a" must still reach URLPattern
  const match = compilePathname(new URLPattern({ pathname: "/a/:x?" }), { caseSensitive: true });
  assert.deepEqual(match(new URL("http://h/a")), { x: undefined });
  assert.equal(match(new URL("http://h/b/1")), undefined);
});

Deno.test("plainPathname: a string URLPattern keeps as written matches as compilePathname does", () => {
  const plain = [
    "/healthz",
    "/_mock/clock/advance",
    "/:issuer/.well-known/openid-configuration",
    "/.well-known/oauth-authorization-server/:issuer",
    "/:issuer/register/:client",
    "/v1/todos/:id",
    "/static/*",
    "/a-b_c~d!$&'*,;=@x",
    "/",
  ];
  const urls = [
    "/healthz",
    "/_mock/clock/advance",
    "/default/.well-known/openid-configuration",
    "/.well-known/oauth-authorization-server/default",
    "/x/register/c1",
    "/v1/todos/42",
    "/v1/todos/4%2F2",
    "/static/a/b.css",
    "/a-b_c~d!$&'*,;=@x",
    "/",
    "/HEALTHZ",
    "/other",
  ].map((p) => new URL(p, "http://x"));
  for (const pathname of plain) {
    const pattern = new URLPattern({ pathname });
    assert.equal(pattern.pathname, pathname, "URLPattern keeps it as written");
    const matcher = plainPathname(pathname);
    assert.ok(matcher, pathname);
    const reference = compilePathname(pattern, { caseSensitive: true });
    for (const url of urls) assert.deepEqual(matcher(url), reference(url), `${pathname} ${url}`);
  }
  // Needs URLPattern: groups, modifiers, escapes, non-ASCII, spaces, dot segments, no leading /.
  for (
    const pathname of [
      "/_mock{/*}?",
      "/:id(\\d+)",
      "/a+",
      "/ä",
      "/a b",
      "/a/../b",
      "/a/./b",
      "/a/.",
      "relative",
      "/%7e",
      "/a#b",
      "/a?b",
    ]
  ) {
    assert.equal(plainPathname(pathname), undefined, pathname);
  }
});
