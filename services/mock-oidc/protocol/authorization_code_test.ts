import assert from "node:assert/strict";
import { base64url } from "../tokens/jwt.ts";
import { claimsOf, harness } from "./_test_support.ts";

const VERIFIER = "a".repeat(43) + "-._~0123456789";
const REDIRECT = "http://rp.test/cb";

async function s256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

async function authorize(
  h: ReturnType<typeof harness>,
  extra: Record<string, string> = {},
): Promise<URL> {
  const query = new URLSearchParams({
    client_id: "app",
    redirect_uri: REDIRECT,
    response_type: "code",
    scope: "openid api",
    state: "st",
    nonce: "n-1",
    ...extra,
  });
  const res = await h.call(`/default/authorize?${query}`);
  assert.equal(res.status, 302);
  return new URL(res.headers.get("location")!);
}

function redeem(h: ReturnType<typeof harness>, code: string, extra: Record<string, string> = {}) {
  return h.form("/default/token", {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    client_id: "app",
    ...extra,
  });
}

Deno.test("code flow with S256 PKCE and nonce issues id, access and refresh tokens", async () => {
  // One instant for the whole flow: auth_time and iat must not straddle a second boundary.
  const startedAt = Date.now();
  const h = harness({}, { now: () => startedAt });
  const location = await authorize(h, {
    code_challenge: await s256(VERIFIER),
    code_challenge_method: "S256",
  });
  assert.equal(location.origin + location.pathname, REDIRECT);
  assert.equal(location.searchParams.get("state"), "st");
  const res = await redeem(h, location.searchParams.get("code")!, { code_verifier: VERIFIER });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(typeof body.refresh_token, "string");
  assert.equal(body.scope, "openid api");
  const id = claimsOf(body.id_token);
  const access = claimsOf(body.access_token);
  assert.equal(id.aud, "app");
  assert.equal(id.nonce, "n-1");
  assert.equal(access.nonce, "n-1");
  assert.equal(id.azp, "app");
  assert.equal(id.auth_time, id.iat); // authenticated when the code was issued
  assert.equal(access.auth_time, undefined);
  assert.equal(id.tid, "default");
  assert.equal(access.aud, "api");
  assert.equal(id.sub, access.sub);
});

Deno.test("plain PKCE works; a wrong verifier is invalid_grant and burns the code", async () => {
  const h = harness();
  const plain = await authorize(h, { code_challenge: VERIFIER });
  const ok = await redeem(h, plain.searchParams.get("code")!, { code_verifier: VERIFIER });
  assert.equal(ok.status, 200);
  const location = await authorize(h, {
    code_challenge: await s256(VERIFIER),
    code_challenge_method: "S256",
  });
  const code = location.searchParams.get("code")!;
  const wrong = await redeem(h, code, { code_verifier: "b".repeat(43) });
  assert.equal(wrong.status, 400);
  const body = await wrong.json();
  assert.equal(body.error, "invalid_grant");
  assert.match(body.error_description, /code_verifier/);
  const retry = await redeem(h, code, { code_verifier: VERIFIER });
  assert.equal((await retry.json()).error, "invalid_grant");
});

Deno.test("a PKCE code cannot be redeemed without a verifier (no downgrade)", async () => {
  const h = harness();
  const location = await authorize(h, { code_challenge: VERIFIER, code_challenge_method: "plain" });
  const res = await redeem(h, location.searchParams.get("code")!);
  assert.equal((await res.json()).error, "invalid_grant");
});

Deno.test("codes are single use: a replay is invalid_grant", async () => {
  const h = harness();
  const code = (await authorize(h)).searchParams.get("code")!;
  assert.equal((await redeem(h, code)).status, 200);
  const replay = await redeem(h, code);
  assert.equal(replay.status, 400);
  assert.equal((await replay.json()).error, "invalid_grant");
  const unknown = await redeem(h, "nope");
  assert.equal((await unknown.json()).error, "invalid_grant");
});

Deno.test("code redemption checks redirect_uri and client", async () => {
  const h = harness();
  const code1 = (await authorize(h)).searchParams.get("code")!;
  const res1 = await redeem(h, code1, { redirect_uri: "http://evil.test/cb" });
  assert.equal((await res1.json()).error, "invalid_grant");
  const code2 = (await authorize(h)).searchParams.get("code")!;
  const res2 = await redeem(h, code2, { client_id: "other" });
  assert.equal((await res2.json()).error, "invalid_grant");
  const missing = await h.form("/default/token", { grant_type: "authorization_code" });
  assert.equal((await missing.json()).error, "invalid_request");
});

Deno.test("a code whose authorization request named a redirect_uri needs it at the token endpoint", async (t) => {
  const h = harness();
  const error = async (res: Response) => ({ status: res.status, body: await res.json() });
  await t.step("omitted: 400 invalid_grant, and the code is burnt", async () => {
    const code = (await authorize(h)).searchParams.get("code")!;
    const res = await h.form("/default/token", {
      grant_type: "authorization_code",
      code,
      client_id: "app",
    });
    assert.deepEqual(await error(res), {
      status: 400,
      body: {
        error: "invalid_grant",
        error_description: "redirect_uri is required: the authorization request carried one",
      },
    });
    assert.equal((await (await redeem(h, code)).json()).error, "invalid_grant");
  });
  await t.step("empty counts as omitted (RFC 6749 §3.1)", async () => {
    const code = (await authorize(h)).searchParams.get("code")!;
    const res = await redeem(h, code, { redirect_uri: "" });
    assert.equal(res.status, 400);
    assert.equal(
      (await res.json()).error_description,
      "redirect_uri is required: the authorization request carried one",
    );
  });
  await t.step("a different one: invalid_grant with its own text", async () => {
    const code = (await authorize(h)).searchParams.get("code")!;
    const res = await redeem(h, code, { redirect_uri: REDIRECT + "/" });
    assert.deepEqual(await error(res), {
      status: 400,
      body: {
        error: "invalid_grant",
        error_description: "redirect_uri differs from the authorization request",
      },
    });
  });
  await t.step("the same one: 200", async () => {
    const code = (await authorize(h)).searchParams.get("code")!;
    const res = await redeem(h, code);
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });
});

Deno.test("--code-redirect-uri-optional: an omitted redirect_uri is accepted, a different one is not", async () => {
  const h = harness({}, { codeRedirectUriOptional: true });
  const omitted = await h.form("/default/token", {
    grant_type: "authorization_code",
    code: (await authorize(h)).searchParams.get("code")!,
    client_id: "app",
  });
  assert.equal(omitted.status, 200);
  assert.equal(typeof (await omitted.json()).id_token, "string");
  const empty = await redeem(h, (await authorize(h)).searchParams.get("code")!, {
    redirect_uri: "",
  });
  assert.equal(empty.status, 200);
  await empty.body?.cancel();
  const other = await redeem(h, (await authorize(h)).searchParams.get("code")!, {
    redirect_uri: "http://evil.test/cb",
  });
  assert.equal(other.status, 400);
  assert.deepEqual(await other.json(), {
    error: "invalid_grant",
    error_description: "redirect_uri differs from the authorization request",
  });
});

Deno.test("a code from one issuer is unknown at another", async () => {
  const h = harness();
  const code = (await authorize(h)).searchParams.get("code")!;
  const res = await h.form("/other/token", {
    grant_type: "authorization_code",
    code,
    client_id: "app",
  });
  assert.equal((await res.json()).error, "invalid_grant");
});

Deno.test("refresh_token keeps redeeming the same token with the original subject", async () => {
  const h = harness();
  const code = (await authorize(h)).searchParams.get("code")!;
  const first = await (await redeem(h, code)).json();
  const sub = claimsOf(first.id_token).sub;
  for (let i = 0; i < 2; i++) {
    const res = await h.form("/default/token", {
      grant_type: "refresh_token",
      refresh_token: first.refresh_token,
      client_id: "app",
    });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.refresh_token, first.refresh_token);
    assert.equal(claimsOf(body.access_token).sub, sub);
    assert.equal(claimsOf(body.id_token).sub, sub);
    assert.equal(claimsOf(body.id_token).nonce, undefined);
  }
});

Deno.test("rotateRefreshToken issues a new refresh token and retires the old one", async () => {
  const h = harness({ rotateRefreshToken: true });
  const code = (await authorize(h)).searchParams.get("code")!;
  const first = await (await redeem(h, code)).json();
  const refresh = (token: string) =>
    h.form("/default/token", { grant_type: "refresh_token", refresh_token: token });
  const second = await (await refresh(first.refresh_token)).json();
  assert.notEqual(second.refresh_token, first.refresh_token);
  const old = await refresh(first.refresh_token);
  assert.equal((await old.json()).error, "invalid_grant");
  assert.equal((await refresh(second.refresh_token)).status, 200);
});

Deno.test("unknown refresh tokens and missing parameters are rejected", async () => {
  const h = harness();
  const unknown = await h.form("/default/token", {
    grant_type: "refresh_token",
    refresh_token: "x",
  });
  assert.equal((await unknown.json()).error, "invalid_grant");
  const missing = await h.form("/default/token", { grant_type: "refresh_token" });
  assert.equal((await missing.json()).error, "invalid_request");
});
