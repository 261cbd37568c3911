import assert from "node:assert/strict";
import { createControlHandler, fakeDeps, jsonRequest } from "../control/_test_support.ts";
import { harness } from "../protocol/_test_support.ts";
import { hashSource } from "../ui/mod.ts";
import { CONSOLE_PATH } from "./console_routes.ts";
import { CONSOLE_SCRIPT } from "./console_script.ts";
import { CONSOLE_STYLE } from "./console_style.ts";

Deno.test("GET /_mock/ui serves the console page under a strict CSP", async (t) => {
  const handle = createControlHandler(fakeDeps().deps);
  const res = await handle(new Request(`http://mock.test${CONSOLE_PATH}`));
  const markup = await res.text();
  const csp = res.headers.get("content-security-policy") ?? "";
  await t.step("an HTML page marked testing-only, kept out of caches and frames", () => {
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    assert.equal(res.headers.get("x-frame-options"), "DENY");
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.equal(res.headers.get("x-mock-oidc"), "testing-only");
    assert.match(markup, /name="viewport" content="width=device-width/);
    const ids = [...markup.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]);
    assert.equal(new Set(ids).size, ids.length, `duplicate ids: ${ids}`);
  });
  await t.step("only its own script and styles run, by hash; calls only to this origin", () => {
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /connect-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*|https?:/);
    assert.ok(csp.includes(`script-src ${hashSource(CONSOLE_SCRIPT)};`), csp);
    assert.ok(csp.includes(hashSource(CONSOLE_STYLE)), csp);
    const scripts = [...markup.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    assert.deepEqual(scripts, [CONSOLE_SCRIPT]);
    assert.doesNotMatch(markup, /<script [^>]*src=|\son[a-z]+=|(src|href)="(https?:)?\/\//i);
  });
  await t.step("the script parses and never writes markup or persistent storage", () => {
    new Function(CONSOLE_SCRIPT); // throws a SyntaxError if the assembled script is broken
    assert.doesNotMatch(CONSOLE_SCRIPT, /innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
    assert.doesNotMatch(CONSOLE_SCRIPT, /localStorage|document\.cookie/);
  });
  await t.step("HEAD answers the headers alone", async () => {
    const head = await handle(new Request(`http://mock.test${CONSOLE_PATH}`, { method: "HEAD" }));
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("content-security-policy"), csp);
    assert.equal(await head.text(), "");
  });
  await t.step("other methods are 405, other /_mock/ui paths 404", async () => {
    const post = await handle(jsonRequest("POST", CONSOLE_PATH, {}));
    assert.equal(post.status, 405);
    assert.equal(post.headers.get("allow"), "GET, HEAD");
    const other = await handle(new Request(`http://mock.test${CONSOLE_PATH}/console.js`));
    assert.equal(other.status, 404);
    await Promise.all([post.body?.cancel(), other.body?.cancel()]);
  });
});

Deno.test("with a control token the console assets are open but every call is gated", async (t) => {
  const handle = createControlHandler(fakeDeps({ controlToken: "s3cret" }).deps);
  await t.step("the page needs no token", async () => {
    for (const method of ["GET", "HEAD"]) {
      const res = await handle(new Request(`http://mock.test${CONSOLE_PATH}`, { method }));
      assert.equal(res.status, 200, method);
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

Deno.test("the registered-clients panel reads /_mock/clients, which a registration fills", async (t) => {
  const h = harness();
  const handle = createControlHandler(fakeDeps({ clients: h.core.protocol.state.clients }).deps);
  await t.step("the page has the panel, its refresh and its confirmed clear", async () => {
    const markup = await (await handle(new Request(`http://mock.test${CONSOLE_PATH}`))).text();
    for (const id of ["clients", "client-count", "clients-refresh", "clients-clear-ask"]) {
      assert.ok(markup.includes(` id="${id}"`), id);
    }
    // The clear button asks first: its confirmation starts hidden.
    assert.match(markup, /<div id="clients-clear-confirm" hidden>/);
    assert.ok(CONSOLE_SCRIPT.includes('api("GET", "/_mock/clients")'));
    assert.ok(CONSOLE_SCRIPT.includes('api("DELETE", "/_mock/clients")'));
  });
  await t.step("a client registered at POST /default/register is listed, no secret", async () => {
    const reg = await h.call("/default/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        redirect_uris: ["http://127.0.0.1:9/cb"],
        client_name: "<b>console</b>",
        token_endpoint_auth_method: "client_secret_basic",
      }),
    });
    assert.equal(reg.status, 201);
    const registered = await reg.json();
    assert.equal(typeof registered.client_secret, "string");
    const res = await handle(jsonRequest("GET", "/_mock/clients"));
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.ok(!text.includes(registered.client_secret));
    assert.ok(!text.includes(registered.registration_access_token));
    assert.deepEqual(JSON.parse(text), {
      count: 1,
      clients: [{
        issuer: "default",
        clientId: registered.client_id,
        clientIdIssuedAt: registered.client_id_issued_at,
        clientName: "<b>console</b>",
        tokenEndpointAuthMethod: "client_secret_basic",
        redirectUris: ["http://127.0.0.1:9/cb"],
        grantTypes: ["authorization_code"],
      }],
    });
  });
  await t.step("the panel's clear forgets them", async () => {
    const res = await handle(jsonRequest("DELETE", "/_mock/clients"));
    assert.deepEqual(await res.json(), { count: 0 });
    assert.equal((await (await handle(jsonRequest("GET", "/_mock/clients"))).json()).count, 0);
  });
});
