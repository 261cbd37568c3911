import assert from "node:assert/strict";
import { escapeHtml, html, SafeHtml, trustedHtml } from "./html.ts";

Deno.test("html escapes interpolated values and keeps SafeHtml", async (t) => {
  await t.step("every markup character of a string is escaped", () => {
    assert.equal(
      html`<p title="${`"'`}">${"<script>&"}</p>`.value,
      `<p title="&#34;&#39;">&#60;script&#62;&#38;</p>`,
    );
  });
  await t.step("a nested template is kept, its own values escaped once", () => {
    const inner = html`<b>${"<i>"}</b>`;
    assert.equal(html`<p>${inner}</p>`.value, "<p><b>&#60;i&#62;</b></p>");
  });
  await t.step("arrays join; null, undefined and false render nothing; 0 renders", () => {
    assert.equal(
      html`${["a", html`<br>`, "<"]}|${null}${undefined}${false}|${0}`.value,
      "a<br>&#60;||0",
    );
  });
  await t.step("objects render as their escaped string form", () => {
    assert.equal(html`${{ toString: () => "<x>" }}`.value, "&#60;x&#62;");
  });
  await t.step("trustedHtml is kept as-is and is a SafeHtml", () => {
    assert.ok(trustedHtml("<hr>") instanceof SafeHtml);
    assert.equal(String(html`${trustedHtml("<hr>")}`), "<hr>");
  });
  await t.step("escapeHtml leaves other characters, including control characters, alone", () => {
    assert.equal(escapeHtml("a\u0000b\u202e"), "a\u0000b\u202e");
  });
});
