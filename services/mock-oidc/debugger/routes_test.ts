import assert from "node:assert/strict";
import { harness } from "../protocol/_test_support.ts";
import { FIELD_MAX_CHARS } from "./form.ts";
import { cookiePair, local, startFlow } from "./_test_support.ts";

Deno.test("GET /{issuer}/debugger shows upstream's defaults under a strict CSP", async () => {
  const h = harness();
  const res = await h.call("/default/debugger");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-security-policy")!, /default-src 'none'/);
  assert.doesNotMatch(res.headers.get("content-security-policy")!, /script-src|unsafe/);
  const page = await res.text();
  for (
    const [name, value] of [
      ["client_id", "debugger"],
      ["client_secret", "someSecret"],
      ["scope", "openid somescope"],
      ["response_type", "code"],
      ["state", "1234"],
      ["nonce", "5678"],
    ]
  ) assert.match(page, new RegExp(`name="${name}" value="${value}"`), name);
  assert.match(page, /<option value="client_secret_basic"\s+selected\s*>/);
  assert.match(page, /<option value="client_secret_post"\s*>/);
  assert.match(page, /<option value="query"\s+selected\s*>/);
  assert.match(page, /type="checkbox" id="pkce"/);
  assert.ok(page.includes("http://localhost:8080/default/debugger/callback"));
  const head = await h.call("/default/debugger", { method: "HEAD" });
  assert.equal(head.status, 200);
});

Deno.test("the debugger completes a code flow and verifies the tokens", async (t) => {
  await t.step("defaults: client_secret_basic, no PKCE", async () => {
    const h = harness();
    const { authorize, callback, cookie } = await startFlow(h);
    assert.equal(authorize.pathname, "/default/authorize");
    const q = authorize.searchParams;
    assert.equal(q.get("client_id"), "debugger");
    assert.equal(q.get("redirect_uri"), "http://localhost:8080/default/debugger/callback");
    assert.equal(q.get("scope"), "openid somescope");
    assert.equal(q.get("state"), "1234");
    assert.equal(q.get("nonce"), "5678");
    assert.equal(q.get("code_challenge"), null);
    assert.match(cookie, /^debugger-session=[\w-]+\.\.[\w-]+\.[\w-]+\.[\w-]+$/);
    const res = await h.call(local(callback.href), { headers: { cookie } });
    const page = await res.text();
    assert.equal(res.status, 200, page);
    assert.match(
      res.headers.get("set-cookie")!,
      /^debugger-session=; Path=\/default\/debugger; Max-Age=0/,
    );
    assert.match(page, /Authorization: Basic ZGVidWdnZXI6c29tZVNlY3JldA==/);
    assert.match(page, /grant_type=authorization_code&#38;code=/);
    assert.doesNotMatch(page, /code_verifier|client_secret=/);
    assert.match(page, /id="id_token"\s+data-verified="true"/);
    assert.match(page, /id="access_token"\s+data-verified="true"/);
    assert.match(page, /&#34;nonce&#34;: &#34;5678&#34;/);
    assert.match(page, /&#34;aud&#34;: &#34;debugger&#34;/);
  });
  await t.step("client_secret_post with PKCE", async () => {
    const h = harness();
    const { authorize, callback, cookie } = await startFlow(h, {
      client_auth: "client_secret_post",
      client_id: "app",
      client_secret: "s3",
      pkce: "on",
    });
    assert.equal(authorize.searchParams.get("code_challenge_method"), "S256");
    assert.match(authorize.searchParams.get("code_challenge")!, /^[\w-]{43}$/);
    const res = await h.call(local(callback.href), { headers: { cookie } });
    const page = await res.text();
    assert.equal(res.status, 200, page);
    assert.doesNotMatch(page, /Authorization: Basic/);
    assert.match(page, /code_verifier=[\w-]{43}/);
    assert.match(page, /client_id=app&#38;client_secret=s3/);
    assert.match(page, /id="id_token"\s+data-verified="true"/);
  });
  await t.step("response_mode=form_post arrives as a POST to the callback", async () => {
    const h = harness();
    const start = await h.form("/default/debugger", { response_mode: "form_post" });
    const cookie = cookiePair(start);
    const auth = await h.call(local(start.headers.get("location")!));
    const form = await auth.text();
    assert.equal(auth.status, 200);
    const code = /name="code" value="([^"]+)"/.exec(form)![1];
    const res = await h.form("/default/debugger/callback", { code, state: "1234" }, { cookie });
    assert.equal(res.status, 200, await res.text());
  });
  await t.step("another issuer, with empty state and nonce left out of the request", async () => {
    const h = harness();
    const { authorize, callback, cookie } = await startFlow(h, { state: "", nonce: "" }, "other");
    assert.equal(authorize.searchParams.has("state"), false);
    assert.equal(authorize.searchParams.has("nonce"), false);
    assert.equal(cookie.startsWith("debugger-session="), true);
    const res = await h.call(local(callback.href), { headers: { cookie } });
    assert.equal(res.status, 200, await res.text());
  });
});

Deno.test("an issuer id holding ';' cannot add cookie attributes", async () => {
  const h = harness();
  const { callback, cookie } = await startFlow(h, {}, "a;Domain=evil");
  const start = await h.form("/a;Domain=evil/debugger", {});
  assert.match(start.headers.get("set-cookie")!, /; Path=\/; Max-Age=600; HttpOnly; SameSite=Lax$/);
  assert.equal(start.headers.get("set-cookie")!.split(";").length, 5);
  const res = await h.call(local(callback.href), { headers: { cookie } });
  assert.equal(res.status, 200, await res.text());
});

Deno.test("debugger form validation answers 400 with the error beside the field", async (t) => {
  const h = harness();
  const cases: [Record<string, string>, string, RegExp][] = [
    [{ client_auth: "private_key_jwt" }, "client_auth", /must be one of client_secret_basic/],
    [{ response_mode: "fragment" }, "response_mode", /never reaches the server/],
    [{ client_id: "" }, "client_id", /client_id is required/],
    [{ response_type: "" }, "response_type", /response_type is required/],
    [{ state: "s".repeat(FIELD_MAX_CHARS + 1) }, "state", /at most 512 characters/],
  ];
  for (const [fields, name, message] of cases) {
    await t.step(`${name}: ${JSON.stringify(fields).slice(0, 40)}`, async () => {
      const res = await h.form("/default/debugger", fields);
      const page = await res.text();
      assert.equal(res.status, 400);
      assert.equal(res.headers.get("set-cookie"), null);
      assert.match(page, new RegExp(`id="${name}-error" role="alert">[^<]*`));
      assert.match(page, message);
    });
  }
  await t.step("a field at the bound is accepted", async () => {
    const res = await h.form("/default/debugger", { state: "s".repeat(FIELD_MAX_CHARS) });
    assert.equal(res.status, 302);
  });
  await t.step("posted values come back escaped", async () => {
    const res = await h.form("/default/debugger", { client_id: "", scope: `"><script>x` });
    const page = await res.text();
    assert.ok(page.includes(`value="&#34;&#62;&#60;script&#62;x"`));
    assert.ok(!page.includes("<script>x"));
  });
  await t.step("every field near the bound: too long for a cookie is a 400 page", async () => {
    const long = "x".repeat(FIELD_MAX_CHARS);
    const res = await h.form("/default/debugger", {
      client_id: long,
      client_secret: long,
      scope: long,
      state: long,
      nonce: long,
      response_type: long,
    });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /a cookie holds at most 4000/);
  });
});
