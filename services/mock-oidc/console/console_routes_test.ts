import assert from "node:assert/strict";
import { createControlHandler } from "../control/control_plane.ts";
import { fakeDeps, jsonRequest } from "../control/_test_support.ts";
import { CONSOLE_CSP, CONSOLE_PATH } from "./console_routes.ts";
import { CONSOLE_PAGE } from "./console_page.ts";
import { CONSOLE_SCRIPT } from "./console_script.ts";

const ASSETS: [string, string][] = [
  [CONSOLE_PATH, "text/html; charset=utf-8"],
  [`${CONSOLE_PATH}/console.js`, "text/javascript; charset=utf-8"],
  [`${CONSOLE_PATH}/console.css`, "text/css; charset=utf-8"],
];

Deno.test("GET /_mock/ui serves the page and its embedded assets under a strict CSP", async (t) => {
  const handle = createControlHandler(fakeDeps().deps);
  for (const [path, type] of ASSETS) {
    await t.step(path, async () => {
      const res = await handle(new Request(`http://mock.test${path}`));
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), type);
      assert.equal(res.headers.get("content-security-policy"), CONSOLE_CSP);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      assert.equal(res.headers.get("x-frame-options"), "DENY");
      assert.equal(res.headers.get("cache-control"), "no-store");
      assert.equal(res.headers.get("x-mock-oidc"), "testing-only");
      assert.ok((await res.text()).length > 100);
      const head = await handle(new Request(`http://mock.test${path}`, { method: "HEAD" }));
      assert.equal(head.status, 200);
      assert.equal(await head.text(), "");
    });
  }
  await t.step("the CSP allows no inline script, no other origin and no framing", () => {
    assert.match(CONSOLE_CSP, /default-src 'none'/);
    assert.match(CONSOLE_CSP, /script-src 'self';/);
    assert.match(CONSOLE_CSP, /connect-src 'self';/);
    assert.match(CONSOLE_CSP, /frame-ancestors 'none'/);
    assert.doesNotMatch(CONSOLE_CSP, /unsafe-inline|unsafe-eval|\*|https?:/);
  });
  await t.step("the page has no inline script, handler or external load", () => {
    assert.doesNotMatch(CONSOLE_PAGE, /<script>|<script [^>]*>[^<]|\son[a-z]+=/i);
    assert.doesNotMatch(CONSOLE_PAGE, /(src|href)="(https?:)?\/\//i);
    assert.match(CONSOLE_PAGE, /name="viewport"/);
  });
  await t.step("the script parses and never writes markup", () => {
    new Function(CONSOLE_SCRIPT); // throws a SyntaxError if the assembled script is broken
    assert.doesNotMatch(CONSOLE_SCRIPT, /innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
    assert.doesNotMatch(CONSOLE_SCRIPT, /localStorage/);
  });
  await t.step("other methods are 405, other /_mock/ui paths 404", async () => {
    const post = await handle(jsonRequest("POST", CONSOLE_PATH, {}));
    assert.equal(post.status, 405);
    assert.equal(post.headers.get("allow"), "GET, HEAD");
    const other = await handle(new Request(`http://mock.test${CONSOLE_PATH}/x.js`));
    assert.equal(other.status, 404);
    await Promise.all([post.body?.cancel(), other.body?.cancel()]);
  });
});

Deno.test("with a control token the console assets are open but every call is gated", async (t) => {
  const handle = createControlHandler(fakeDeps({ controlToken: "s3cret" }).deps);
  await t.step("assets need no token", async () => {
    for (const [path] of ASSETS) {
      const res = await handle(new Request(`http://mock.test${path}`));
      assert.equal(res.status, 200, path);
      await res.body?.cancel();
    }
  });
  await t.step("calls without a token are 401", async () => {
    for (const path of ["/_mock/clock", "/_mock/requests/changes", "/_mock/ui/nope"]) {
      const res = await handle(jsonRequest("GET", path));
      assert.equal(res.status, 401, path);
      assert.match((await res.json()).detail, /is required/);
    }
    const post = await handle(jsonRequest("POST", CONSOLE_PATH, {}));
    assert.equal(post.status, 401);
    await post.body?.cancel();
  });
  await t.step("Authorization: Bearer is accepted as the header is", async () => {
    for (const authorization of ["Bearer s3cret", "bearer s3cret"]) {
      const res = await handle(jsonRequest("GET", "/_mock/clock", undefined, { authorization }));
      assert.equal(res.status, 200, authorization);
      await res.body?.cancel();
    }
  });
  await t.step("a wrong or malformed credential is 401", async () => {
    const invalid = /does not match/;
    const missing = /is required/;
    const cases: [Record<string, string>, RegExp][] = [
      [{ authorization: "Bearer nope" }, invalid],
      [{ authorization: "Basic s3cret" }, missing],
      [{ authorization: "Bearer" }, missing],
      // The dedicated header wins over a Bearer credential.
      [{ authorization: "Bearer s3cret", "x-mock-control-token": "x" }, invalid],
    ];
    for (const [headers, detail] of cases) {
      const res = await handle(jsonRequest("GET", "/_mock/clock", undefined, headers));
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.match((await res.json()).detail, detail);
    }
  });
});
