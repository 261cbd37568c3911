import assert from "node:assert/strict";
import { claimsOf, harness } from "./_test_support.ts";

const BASE_QUERY = {
  "client_id": "app",
  "redirect_uri": "http://rp.test/cb?x=1",
  "response_type": "code",
  scope: "openid",
};
const q = (extra: Record<string, string> = {}) => new URLSearchParams({ ...BASE_QUERY, ...extra });

Deno.test("query mode keeps the redirect_uri's own query and adds code and state", async () => {
  const h = harness();
  const res = await h.call(`/default/authorize?${q({ state: "s 1" })}`);
  const location = new URL(res.headers.get("location")!);
  assert.equal(location.searchParams.get("x"), "1");
  assert.equal(location.searchParams.get("state"), "s 1");
  assert.ok(location.searchParams.get("code"));
});

Deno.test("fragment mode puts code in the fragment", async () => {
  const h = harness();
  const res = await h.call(`/default/authorize?${q({ response_mode: "fragment", state: "s" })}`);
  const location = new URL(res.headers.get("location")!);
  const fragment = new URLSearchParams(location.hash.slice(1));
  assert.ok(fragment.get("code"));
  assert.equal(fragment.get("state"), "s");
});

Deno.test("form_post without state renders an auto-submit page (no 500)", async () => {
  const h = harness();
  const res = await h.call(`/default/authorize?${q({ response_mode: "form_post" })}`);
  assert.equal(res.status, 200);
  const html = await res.text();
  assert.match(html, /name="code"/);
  assert.doesNotMatch(html, /name="state"/);
  assert.match(html, /action="http:\/\/rp.test\/cb\?x=1"/);
});

Deno.test("protocol errors redirect back (302) with correct-case codes and state", async () => {
  const h = harness();
  const res = await h.call(`/default/authorize?${q({ response_type: "token", state: "s" })}`);
  assert.equal(res.status, 302);
  const location = new URL(res.headers.get("location")!);
  assert.equal(location.searchParams.get("error"), "unsupported_response_type");
  assert.equal(location.searchParams.get("state"), "s");
  const bad = await h.call(`/default/authorize?${q({ code_challenge_method: "S512" })}`);
  const badLocation = new URL(bad.headers.get("location")!);
  assert.equal(badLocation.searchParams.get("error"), "invalid_request");
});

Deno.test("without a usable redirect_uri the error is a 400 JSON body", async () => {
  const h = harness();
  const res = await h.call(`/default/authorize?client_id=app&response_type=code`);
  assert.equal(res.status, 400);
  assert.equal((await res.json()).error, "invalid_request");
  const noClient = await h.call(`/default/authorize?redirect_uri=http://rp.test/cb`);
  assert.equal((await noClient.json()).error, "invalid_request");
});

Deno.test("interactive login renders a page that loads nothing from the network", async () => {
  const h = harness({ interactiveLogin: true });
  const res = await h.call(`/default/authorize?${q()}`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /text\/html/);
  assert.match(res.headers.get("content-security-policy")!, /default-src 'none'/);
  const html = await res.text();
  assert.match(html, /name="username"/);
  assert.match(html, /name="claims"/);
  assert.doesNotMatch(html, /(src|href)=["']?(https?:)?\/\//);
  assert.doesNotMatch(html, /@import|url\(/);
});

Deno.test("a loginPagePath page is served as-is and its username POST issues a code", async () => {
  const custom = "<!doctype html><form method=post><input name=username></form>";
  const dir = await Deno.makeTempDir();
  const file = `${dir}/login.html`;
  try {
    await Deno.writeTextFile(file, custom);
    const h = harness({ interactiveLogin: true, loginPagePath: file });
    const page = await h.call(`/default/authorize?${q()}`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type")!, /text\/html/);
    assert.equal(page.headers.get("content-security-policy"), null);
    assert.equal(await page.text(), custom);
    const res = await h.form(`/default/authorize?${q()}`, { username: "carol" });
    assert.equal(res.status, 302);
    assert.ok(new URL(res.headers.get("location")!).searchParams.get("code"));
    // Read per request, as upstream: an edit shows at once, a removed file is a 404.
    await Deno.writeTextFile(file, "<p>edited</p>");
    assert.equal(await (await h.call(`/default/authorize?${q()}`)).text(), "<p>edited</p>");
    await Deno.remove(file);
    const gone = await h.call(`/default/authorize?${q()}`);
    assert.equal(gone.status, 404);
    assert.match((await gone.json()).detail, /loginPagePath cannot be read/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("prompt=login forces the login page; prompt=none with login needed is login_required", async () => {
  const h = harness();
  const login = await h.call(`/default/authorize?${q({ prompt: "login" })}`);
  assert.equal(login.status, 200);
  const hi = harness({ interactiveLogin: true });
  const none = await hi.call(`/default/authorize?${q({ prompt: "none", state: "z" })}`);
  assert.equal(none.status, 302);
  const location = new URL(none.headers.get("location")!);
  assert.equal(location.searchParams.get("error"), "login_required");
  assert.equal(location.searchParams.get("state"), "z");
});

Deno.test("login submit issues a code for the username with the claims JSON", async () => {
  const h = harness({ interactiveLogin: true });
  const res = await h.form(`/default/authorize?${q({ nonce: "nn" })}`, {
    username: "alice",
    claims: '{"acr":"high","tid":"custom"}',
  });
  assert.equal(res.status, 302);
  const code = new URL(res.headers.get("location")!).searchParams.get("code")!;
  const token = await h.form("/default/token", {
    grant_type: "authorization_code",
    code,
    client_id: "app",
    redirect_uri: BASE_QUERY.redirect_uri,
  });
  const body = await token.json();
  const id = claimsOf(body.id_token);
  assert.equal(id.sub, "alice");
  assert.equal(id.acr, "high");
  assert.equal(id.tid, "custom");
  assert.equal(id.nonce, "nn");
  const missing = await h.form(`/default/authorize?${q()}`, { username: "" });
  assert.equal(
    new URL(missing.headers.get("location")!).searchParams.get("error"),
    "invalid_request",
  );
});

Deno.test("invalid login claims JSON is ignored", async () => {
  const h = harness({ interactiveLogin: true });
  const res = await h.form(`/default/authorize?${q()}`, { username: "bob", claims: "{oops" });
  assert.equal(res.status, 302);
});

Deno.test("a POSTed authorization request keeps its parameters through the login page", async () => {
  const h = harness({ interactiveLogin: true });
  const page = await h.form("/default/authorize", { ...BASE_QUERY, state: "post-state" });
  const html = await page.text();
  assert.match(html, /type="hidden" name="state" value="post-state"/);
  const submit = await h.form("/default/authorize", {
    ...BASE_QUERY,
    state: "post-state",
    username: "pat",
  });
  const location = new URL(submit.headers.get("location")!);
  assert.equal(location.searchParams.get("state"), "post-state");
});

Deno.test("script-bearing redirect_uri schemes are refused; custom app schemes work", async () => {
  const h = harness();
  const js = await h.call(
    `/default/authorize?${q({ redirect_uri: "javascript:alert(1)", response_mode: "form_post" })}`,
  );
  assert.equal(js.status, 400);
  assert.equal((await js.json()).error, "invalid_request");
  const app = await h.call(`/default/authorize?${q({ redirect_uri: "com.example.app:/cb" })}`);
  assert.equal(app.status, 302);
  assert.match(app.headers.get("location")!, /^com\.example\.app:\/cb\?code=/);
});

Deno.test("RFC 9207: iss on every authorization response, success and error, every mode", async (t) => {
  const h = harness();
  const iss = "http://localhost:8080/default";
  const fromQuery = (res: Response) => new URL(res.headers.get("location")!).searchParams;
  const fromFragment = (res: Response) =>
    new URLSearchParams(new URL(res.headers.get("location")!).hash.slice(1));
  const fromForm = async (res: Response) => {
    const html = await res.text();
    return new URLSearchParams(
      [...html.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]),
    );
  };
  const modes: [string, (res: Response) => URLSearchParams | Promise<URLSearchParams>][] = [
    ["query", fromQuery],
    ["fragment", fromFragment],
    ["form_post", fromForm],
  ];
  for (const [mode, read] of modes) {
    await t.step(`${mode}: a code`, async () => {
      const res = await h.call(`/default/authorize?${q({ response_mode: mode, state: "s" })}`);
      const values = await read(res);
      assert.ok(values.get("code"));
      assert.equal(values.get("state"), "s");
      assert.equal(values.get("iss"), iss);
    });
    await t.step(`${mode}: an error`, async () => {
      const res = await h.call(
        `/default/authorize?${q({ response_mode: mode, response_type: "token", state: "s" })}`,
      );
      const values = await read(res);
      assert.equal(values.get("error"), "unsupported_response_type");
      assert.equal(values.get("state"), "s");
      assert.equal(values.get("iss"), iss);
    });
  }
  await t.step(
    "an unsupported response_mode's error (answered in query) names it too",
    async () => {
      const res = await h.call(`/default/authorize?${q({ response_mode: "jwt" })}`);
      assert.equal(fromQuery(res).get("error"), "invalid_request");
      assert.equal(fromQuery(res).get("iss"), iss);
    },
  );
  await t.step("iss is the issuer URL as the caller sees it (percent-encoded id)", async () => {
    const res = await h.call(`/a%3Fb/authorize?${q()}`, {
      headers: { "x-forwarded-proto": "https", "x-forwarded-host": "idp.example" },
    });
    assert.equal(fromQuery(res).get("iss"), "https://idp.example/a%3Fb");
  });
  await t.step("discovery advertises it", async () => {
    const doc = await (await h.call("/default/.well-known/openid-configuration")).json();
    assert.equal(doc.authorization_response_iss_parameter_supported, true);
  });
});
