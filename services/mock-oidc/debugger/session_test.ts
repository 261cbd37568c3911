import assert from "node:assert/strict";
import {
  type DebuggerSession,
  openSession,
  sealSession,
  SESSION_COOKIE_MAX_CHARS,
  sessionCookieOf,
  setSessionCookie,
} from "./session.ts";
import { newSessionKey } from "./session_key.ts";

const SESSION: DebuggerSession = {
  issuerId: "default",
  clientId: "debugger",
  clientSecret: "someSecret",
  clientAuth: "client_secret_basic",
  scope: "openid somescope",
  responseType: "code",
  responseMode: "query",
  state: "1234",
  nonce: "5678",
  redirectUri: "http://localhost/default/debugger/callback",
  codeVerifier: "v".repeat(43),
};

Deno.test("debugger session cookie: sealed with the process key, opens only with it", async (t) => {
  const key = newSessionKey();
  const sealed = await sealSession(SESSION, key);
  await t.step("round trip", async () => {
    assert.deepEqual(await openSession(sealed, key), SESSION);
  });
  await t.step("a compact dir/A128GCM JWE whose payload is not readable", () => {
    const [header, encryptedKey] = sealed.split(".");
    assert.deepEqual(JSON.parse(atob(header.replace(/-/g, "+").replace(/_/g, "/"))), {
      alg: "dir",
      enc: "A128GCM",
    });
    assert.equal(encryptedKey, "");
    assert.ok(!sealed.includes("someSecret"));
  });
  await t.step("another process's key does not open it", async () => {
    assert.equal(await openSession(sealed, newSessionKey()), undefined);
  });
  await t.step("every flipped character of the ciphertext or tag fails", async () => {
    const parts = sealed.split(".");
    for (const i of [2, 3, 4]) {
      const edited = [...parts];
      edited[i] = (edited[i][0] === "A" ? "B" : "A") + edited[i].slice(1);
      assert.equal(await openSession(edited.join("."), key), undefined, `part ${i}`);
    }
  });
  await t.step("garbage, empty, and an alg=none forgery fail", async () => {
    const none = `${btoa('{"alg":"none"}')}.${btoa(JSON.stringify(SESSION))}.`;
    for (const value of ["", "x", "a.b.c.d.e", none, "%00"]) {
      assert.equal(await openSession(value, key), undefined, value);
    }
  });
  await t.step("a well-sealed value that is not a session fails", async () => {
    const { CompactEncrypt } = await import("jose");
    const other = await new CompactEncrypt(new TextEncoder().encode('{"issuerId":1}'))
      .setProtectedHeader({ alg: "dir", enc: "A128GCM" }).encrypt(key);
    assert.equal(await openSession(other, key), undefined);
    const notJson = await new CompactEncrypt(new TextEncoder().encode("{"))
      .setProtectedHeader({ alg: "dir", enc: "A128GCM" }).encrypt(key);
    assert.equal(await openSession(notJson, key), undefined);
  });
  await t.step("at the length bound it is read, one above it is refused unread", async () => {
    const padded = await sealSession({ ...SESSION, scope: "" }, key);
    const room = SESSION_COOKIE_MAX_CHARS - padded.length;
    // base64url grows 4/3: find a scope that lands exactly on the bound.
    let scope = "s".repeat(Math.floor(room * 3 / 4));
    let value = await sealSession({ ...SESSION, scope }, key);
    while (value.length < SESSION_COOKIE_MAX_CHARS) {
      scope += "s";
      value = await sealSession({ ...SESSION, scope }, key);
    }
    while (value.length > SESSION_COOKIE_MAX_CHARS) {
      scope = scope.slice(1);
      value = await sealSession({ ...SESSION, scope }, key);
    }
    assert.equal(value.length, SESSION_COOKIE_MAX_CHARS);
    assert.equal((await openSession(value, key))?.scope, scope);
    const over = await sealSession({ ...SESSION, scope: scope + "sss" }, key);
    assert.ok(over.length > SESSION_COOKIE_MAX_CHARS);
    assert.equal(await openSession(over, key), undefined);
  });
});

Deno.test("debugger session cookie header handling", async (t) => {
  await t.step("the first debugger-session among other cookies is read", () => {
    const req = new Request("http://x/", {
      headers: { cookie: "a=1; debugger-session=abc.def; debugger-session=second" },
    });
    assert.equal(sessionCookieOf(req), "abc.def");
  });
  await t.step("absent, or only a similar name: none", () => {
    assert.equal(sessionCookieOf(new Request("http://x/")), undefined);
    const similar = new Request("http://x/", { headers: { cookie: "xdebugger-session=1" } });
    assert.equal(sessionCookieOf(similar), undefined);
  });
  await t.step("Set-Cookie is HttpOnly, SameSite=Lax, scoped, Secure only on https", () => {
    const plain = setSessionCookie("v", { path: "/default/debugger", secure: false });
    assert.equal(
      plain,
      "debugger-session=v; Path=/default/debugger; Max-Age=600; HttpOnly; SameSite=Lax",
    );
    assert.match(setSessionCookie("v", { path: "/", secure: true }), /; Secure$/);
  });
});
