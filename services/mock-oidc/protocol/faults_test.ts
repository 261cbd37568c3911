import assert from "node:assert/strict";
import { BASE, basic, harness } from "./_test_support.ts";
import type { Fault } from "./fault_queue.ts";

let ids = 0;
function queue(
  h: ReturnType<typeof harness>,
  fault: Partial<Fault> & Pick<Fault, "endpoint" | "kind">,
) {
  const full: Fault = { faultId: `f${++ids}`, remaining: 1, ...fault };
  assert.ok(h.core.protocol.faults!.add(full));
  return full.faultId;
}

const clientCredentials = (h: ReturnType<typeof harness>, issuer = "default", extra = {}) =>
  h.form(`/${issuer}/token`, {
    grant_type: "client_credentials",
    client_id: "app",
    scope: "api",
    ...extra,
  });

Deno.test("oauth_error: the next N matching calls, then the endpoint as usual", async () => {
  const h = harness();
  const id = queue(h, {
    endpoint: "token",
    kind: "oauth_error",
    error: "temporarily_unavailable",
    errorDescription: "try later",
    status: 503,
    remaining: 2,
  });
  for (let i = 0; i < 2; i++) {
    const res = await clientCredentials(h);
    assert.equal(res.status, 503);
    assert.equal(res.headers.get("x-mock-oidc-fault"), id);
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.deepEqual(await res.json(), {
      error: "temporarily_unavailable",
      "error_description": "try later",
    });
  }
  const third = await clientCredentials(h);
  assert.equal(third.status, 200);
  assert.equal(third.headers.get("x-mock-oidc-fault"), null);
  await third.body?.cancel();
  assert.equal(h.core.protocol.faults!.size, 0);
});

Deno.test("matching: issuer, endpoint, grant type and client id (form or Basic)", async () => {
  const h = harness();
  queue(h, { endpoint: "token", kind: "oauth_error", error: "invalid_grant", issuer: "realms/x" });
  queue(h, {
    endpoint: "token",
    kind: "oauth_error",
    error: "invalid_client",
    status: 401,
    grantType: "password",
  });
  queue(h, { endpoint: "token", kind: "http", status: 500, body: "boom", clientId: "c2" });
  // Another issuer, another grant, another client: untouched.
  for (const res of [await clientCredentials(h), await clientCredentials(h, "realms")]) {
    assert.equal(res.status, 200);
    await res.body?.cancel();
  }
  const issuerFault = await clientCredentials(h, "realms/x");
  assert.equal((await issuerFault.json()).error, "invalid_grant");
  const grantFault = await h.form("/default/token", {
    grant_type: "password",
    username: "u",
    password: "p",
    client_id: "app",
  });
  assert.equal(grantFault.status, 401);
  assert.equal((await grantFault.json()).error, "invalid_client");
  const clientFault = await h.form("/default/token", { grant_type: "client_credentials" }, {
    authorization: basic("c2"),
  });
  assert.equal(clientFault.status, 500);
  assert.equal(await clientFault.text(), "boom");
  assert.equal(clientFault.headers.get("content-type"), "text/plain; charset=utf-8");
  assert.equal(h.core.protocol.faults!.size, 0);
});

Deno.test("malformed: discovery that is not JSON, a JWKS without keys", async () => {
  const h = harness();
  queue(h, { endpoint: "discovery", kind: "malformed", malformed: "bad_json" });
  queue(h, { endpoint: "jwks", kind: "malformed", malformed: "jwks_without_keys" });
  const doc = await h.call("/default/.well-known/openid-configuration");
  assert.equal(doc.status, 200);
  assert.equal(doc.headers.get("content-type"), "application/json");
  await assert.rejects(doc.json(), SyntaxError);
  const jwks = await h.call("/default/jwks");
  assert.deepEqual(await jwks.json(), { keys: [] });
  const after = await (await h.call("/default/jwks")).json();
  assert.equal(after.keys.length, 1);
});

Deno.test("close: the body never arrives", async () => {
  const h = harness();
  const id = queue(h, { endpoint: "userinfo", kind: "close" });
  const res = await h.call("/default/userinfo");
  assert.equal(res.headers.get("x-mock-oidc-fault"), id);
  await assert.rejects(res.text(), /connection closed on purpose/);
});

Deno.test("delay: waits through the injected sleep, then the endpoint answers, marked", async () => {
  const waits: number[] = [];
  let release!: () => void;
  let asleep!: () => void;
  const sleeping = new Promise<void>((resolve) => asleep = resolve);
  const h = harness({}, {
    sleep: (ms) => {
      waits.push(ms);
      asleep();
      return new Promise<void>((resolve) => release = resolve);
    },
  });
  const id = queue(h, { endpoint: "jwks", kind: "delay", delayMs: 10_000 });
  let answered = false;
  const pending = h.call("/default/jwks").then((res) => (answered = true, res));
  await sleeping;
  assert.deepEqual(waits, [10_000]);
  assert.equal(answered, false);
  release();
  const res = await pending;
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("x-mock-oidc-fault"), id);
  assert.equal((await res.json()).keys.length, 1);
});

Deno.test("authorize: an oauth_error fault redirects back with error, state and iss", async () => {
  const h = harness();
  queue(h, { endpoint: "authorize", kind: "oauth_error", error: "server_error", remaining: 2 });
  const query = (mode: string) =>
    new URLSearchParams({
      client_id: "app",
      redirect_uri: "http://rp.test/cb",
      response_type: "code",
      state: "s",
      response_mode: mode,
    });
  const res = await h.call(`/realms/x/authorize?${query("query")}`);
  assert.equal(res.status, 302);
  const location = new URL(res.headers.get("location")!);
  assert.equal(location.searchParams.get("error"), "server_error");
  assert.equal(location.searchParams.get("state"), "s");
  assert.equal(location.searchParams.get("iss"), `${BASE}/realms/x`);
  const fragment = await h.call(`/default/authorize?${query("fragment")}`);
  const hash = new URLSearchParams(new URL(fragment.headers.get("location")!).hash.slice(1));
  assert.equal(hash.get("error"), "server_error");
  assert.equal(hash.get("iss"), `${BASE}/default`);
});

Deno.test("the login page offers a refusal: access_denied with state and iss", async () => {
  const h = harness({ interactiveLogin: true });
  const query = new URLSearchParams({
    client_id: "app",
    redirect_uri: "http://rp.test/cb",
    response_type: "code",
    state: "s1",
  });
  const page = await (await h.call(`/default/authorize?${query}`)).text();
  assert.match(page, /<button type="submit" name="deny" value="1" formnovalidate/);
  const res = await h.form(`/default/authorize?${query}`, { deny: "1" });
  assert.equal(res.status, 302);
  const location = new URL(res.headers.get("location")!);
  assert.equal(location.searchParams.get("error"), "access_denied");
  assert.equal(
    location.searchParams.get("error_description"),
    "the user refused at the login page",
  );
  assert.equal(location.searchParams.get("state"), "s1");
  assert.equal(location.searchParams.get("iss"), `${BASE}/default`);
  assert.equal(location.searchParams.get("code"), null);
});
