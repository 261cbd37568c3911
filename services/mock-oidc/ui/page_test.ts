import assert from "node:assert/strict";
import { hashSource } from "./csp.ts";
import { html } from "./html.ts";
import { pageHtml, pageResponse } from "./page.ts";

function inline(markup: string, tag: string): string[] {
  return [...markup.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g"))].map((m) => m[1]);
}

Deno.test("pageResponse allows exactly its own inline style and scripts", async (t) => {
  await t.step("every inline style and script hash is in the CSP, nothing unsafe", async () => {
    const res = pageResponse({ title: "t", body: html`<p>x</p>`, scripts: ["let a = 1;"] });
    const csp = res.headers.get("content-security-policy")!;
    const markup = await res.text();
    const styles = inline(markup, "style");
    const scripts = inline(markup, "script");
    assert.equal(styles.length, 1);
    assert.deepEqual(scripts, ["let a = 1;"]);
    for (const text of [...styles, ...scripts]) assert.ok(csp.includes(hashSource(text)), text);
    assert.doesNotMatch(csp, /unsafe|\*/);
    assert.match(csp, /form-action 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /connect-src/);
  });
  await t.step("without scripts there is no script-src (default-src 'none' blocks all)", () => {
    const csp = pageResponse({ title: "t", body: html`` }).headers.get("content-security-policy")!;
    assert.doesNotMatch(csp, /script-src/);
  });
  await t.step("connect adds connect-src 'self' only", () => {
    const res = pageResponse({ title: "t", body: html``, scripts: ["1"], connect: true });
    assert.match(res.headers.get("content-security-policy")!, /connect-src 'self'(;|$)/);
  });
  await t.step("headers: html, no-store, nosniff, no-referrer, no framing, extras kept", () => {
    const res = pageResponse({
      title: "t",
      body: html``,
      status: 422,
      headers: { "Set-Cookie": "a=b" },
    });
    assert.equal(res.status, 422);
    assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    assert.equal(res.headers.get("referrer-policy"), "no-referrer");
    assert.equal(res.headers.get("x-frame-options"), "DENY");
    assert.equal(res.headers.get("set-cookie"), "a=b");
  });
  await t.step("page styles are inlined after the shared one and allowed by hash", async () => {
    const res = pageResponse({ title: "t", body: html``, styles: ["p{color:red}"] });
    const csp = res.headers.get("content-security-policy")!;
    const styles = inline(await res.text(), "style");
    assert.equal(styles.length, 2);
    assert.equal(styles[1], "p{color:red}");
    for (const text of styles) assert.ok(csp.includes(hashSource(text)), text);
    assert.throws(
      () => pageHtml({ title: "t", body: html``, styles: ["</STYLE><b>"] }),
      /Cannot embed a stylesheet/,
    );
  });
  await t.step("a script holding </script is refused", () => {
    assert.throws(
      () => pageHtml({ title: "t", body: html``, scripts: ["'</SCRIPT>'"] }),
      /Cannot embed a script/,
    );
  });
  await t.step("the viewport meta makes it readable on a narrow screen", () => {
    assert.match(pageHtml({ title: "t", body: html`` }), /width=device-width/);
  });
});
