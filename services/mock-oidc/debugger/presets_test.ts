import assert from "node:assert/strict";
import { harness } from "../protocol/_test_support.ts";
import { authorizeUrl, readDebuggerForm } from "./form.ts";
import { local, startFlow } from "./_test_support.ts";

const PRESETS = [{ username: "alice", claims: { roles: ["admin"] } }, { username: "bob" }];
const ISSUER = { issuerId: "default", redirectUri: "http://h/default/debugger/callback" };

Deno.test("debugger form: 'Log in as' lists the presets only when some are configured", async () => {
  const page = await (await harness({ loginPresets: PRESETS }).call("/default/debugger")).text();
  assert.match(page, /<select id="login_hint" name="login_hint">/);
  assert.match(page, /<option value=""\s+selected\s*><\/option>/);
  assert.match(page, /<option value="alice"\s*>alice<\/option>/);
  assert.match(page, /<option value="bob"\s*>bob<\/option>/);
  const bare = await (await harness().call("/default/debugger")).text();
  assert.doesNotMatch(bare, /login_hint/);
});

Deno.test("debugger form: login_hint must be a preset or empty", async () => {
  const presets = ["alice", "bob"];
  const ok = readDebuggerForm(new URLSearchParams({ "login_hint": "bob" }), {
    ...ISSUER,
    presets,
  });
  assert.ok(ok.ok);
  assert.equal(ok.loginHint, "bob");
  const url = new URL(await authorizeUrl("http://h/default", ok.session, ok.loginHint));
  assert.equal(url.searchParams.get("login_hint"), "bob");
  const empty = readDebuggerForm(new URLSearchParams({ "login_hint": "" }), { ...ISSUER, presets });
  assert.ok(empty.ok);
  assert.equal(empty.loginHint, undefined);
  const none = new URL(await authorizeUrl("http://h/default", empty.session, empty.loginHint));
  assert.equal(none.searchParams.has("login_hint"), false);
  for (const extra of [{ presets }, {}]) {
    const bad = readDebuggerForm(new URLSearchParams({ "login_hint": "mallory" }), {
      ...ISSUER,
      ...extra,
    });
    assert.ok(!bad.ok);
    assert.equal(bad.errors.login_hint, "must be one of the loginPresets, or empty");
  }
  const h = harness({ loginPresets: PRESETS });
  const res = await h.form("/default/debugger", { "login_hint": "mallory" });
  assert.equal(res.status, 400);
  assert.match(await res.text(), /login_hint must be one of the loginPresets, or empty/);
});

Deno.test("debugger: a picked preset is the subject of the tokens, with its claims", async () => {
  const h = harness({ loginPresets: PRESETS });
  const { authorize, callback, cookie } = await startFlow(h, { "login_hint": "alice" });
  assert.equal(authorize.searchParams.get("login_hint"), "alice");
  const res = await h.call(local(callback.href), { headers: { cookie } });
  const page = await res.text();
  assert.equal(res.status, 200, page);
  assert.match(page, /&#34;sub&#34;: &#34;alice&#34;/);
  assert.match(page, /&#34;roles&#34;: \[/);
});

Deno.test("debugger: a preset picked for a pushed request is pushed with it", async () => {
  const h = harness({ loginPresets: PRESETS });
  const { authorize, callback, cookie } = await startFlow(h, { "login_hint": "bob", par: "on" });
  // Only the request_uri reaches authorize: the preset came through /par.
  assert.equal(authorize.searchParams.get("login_hint"), null);
  assert.ok(authorize.searchParams.has("request_uri"));
  const res = await h.call(local(callback.href), { headers: { cookie } });
  const page = await res.text();
  assert.equal(res.status, 200, page);
  assert.match(page, /&#34;sub&#34;: &#34;bob&#34;/);
});
