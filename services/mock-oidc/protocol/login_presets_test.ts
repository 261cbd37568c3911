import assert from "node:assert/strict";
import { BASE, harness } from "./_test_support.ts";

const PRESETS = [
  { username: "alice", claims: { roles: ["admin"], acr: "high" } },
  { username: "<bob>" },
];
const QUERY = new URLSearchParams({
  "client_id": "app",
  "redirect_uri": "http://rp.test/cb",
  "response_type": "code",
  scope: "openid",
  state: "s1",
});

async function idTokenClaims(h: ReturnType<typeof harness>, location: URL) {
  const res = await h.form("/default/token", {
    "grant_type": "authorization_code",
    code: location.searchParams.get("code")!,
    "redirect_uri": "http://rp.test/cb",
    "client_id": "app",
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return JSON.parse(atob(body.id_token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
}

Deno.test("login page: a button per preset (escaped), free entry and Refuse as before", async () => {
  const h = harness({ interactiveLogin: true, loginPresets: PRESETS });
  const page = await (await h.call(`/default/authorize?${QUERY}`)).text();
  assert.match(page, /<button type="submit" name="preset" value="alice" formnovalidate/);
  assert.match(page, /name="preset" value="&#60;bob&#62;"[^>]*>&#60;bob&#62;<\/button>/);
  assert.doesNotMatch(page, /<bob>/);
  assert.match(page, /<input id="username" name="username" required/);
  assert.match(page, /name="deny" value="1"/);
  const none = await (await harness({ interactiveLogin: true }).call(`/default/authorize?${QUERY}`))
    .text();
  assert.doesNotMatch(none, /name="preset"/);
});

Deno.test("login page: a preset signs in with its username and claims", async () => {
  const h = harness({ interactiveLogin: true, loginPresets: PRESETS });
  const res = await h.form(`/default/authorize?${QUERY}`, { preset: "alice" });
  assert.equal(res.status, 302);
  const location = new URL(res.headers.get("location")!);
  assert.equal(location.searchParams.get("iss"), `${BASE}/default`);
  const claims = await idTokenClaims(h, location);
  assert.deepEqual([claims.sub, claims.roles, claims.acr], ["alice", ["admin"], "high"]);
});

Deno.test("login page: free entry still works beside presets", async () => {
  const h = harness({ interactiveLogin: true, loginPresets: PRESETS });
  const res = await h.form(`/default/authorize?${QUERY}`, {
    username: "zed",
    claims: '{"team":"z"}',
  });
  const claims = await idTokenClaims(h, new URL(res.headers.get("location")!));
  assert.deepEqual([claims.sub, claims.team, claims.roles], ["zed", "z", undefined]);
});

Deno.test("login page: a preset that is not configured is refused back to the client", async () => {
  const h = harness({ interactiveLogin: true, loginPresets: PRESETS });
  const res = await h.form(`/default/authorize?${QUERY}`, { preset: "mallory" });
  assert.equal(res.status, 302);
  const location = new URL(res.headers.get("location")!);
  assert.equal(location.searchParams.get("error"), "invalid_request");
  assert.equal(
    location.searchParams.get("error_description"),
    "preset is not one of the configured loginPresets",
  );
  assert.equal(location.searchParams.get("code"), null);
  assert.equal(location.searchParams.get("state"), "s1");
});

Deno.test("login_hint: names a preset when no page is due; pre-fills the page when one is", async () => {
  const h = harness({ loginPresets: PRESETS });
  const hinted = await h.call(`/default/authorize?${QUERY}&login_hint=alice`);
  const claims = await idTokenClaims(h, new URL(hinted.headers.get("location")!));
  assert.deepEqual([claims.sub, claims.roles], ["alice", ["admin"]]);
  // a hint that names no preset changes nothing
  const other = await h.call(`/default/authorize?${QUERY}&login_hint=nobody`);
  assert.notEqual((await idTokenClaims(h, new URL(other.headers.get("location")!))).sub, "nobody");
  const page = await (await h.call(`/default/authorize?${QUERY}&login_hint=alice&prompt=login`))
    .text();
  assert.match(page, /<input id="username" name="username" required[^>]*value="alice">/);
});
