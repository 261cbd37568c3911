import assert from "node:assert/strict";
import { calculatePKCECodeChallenge } from "oauth4webapi";
import {
  authorizeUrl,
  codeChallengeOf,
  DEBUGGER_DEFAULTS,
  FIELD_MAX_CHARS,
  newCodeVerifier,
  readDebuggerForm,
} from "./form.ts";

const ISSUER = { issuerId: "default", redirectUri: "http://h/default/debugger/callback" };

Deno.test("readDebuggerForm: defaults, overrides and PKCE", async (t) => {
  await t.step("an empty post takes upstream's defaults, no PKCE", () => {
    const result = readDebuggerForm(new URLSearchParams(), ISSUER);
    assert.ok(result.ok);
    assert.deepEqual(result.session, {
      issuerId: "default",
      clientId: "debugger",
      clientSecret: "someSecret",
      clientAuth: "client_secret_basic",
      scope: "openid somescope",
      responseType: "code",
      responseMode: "query",
      state: "1234",
      nonce: "5678",
      redirectUri: ISSUER.redirectUri,
      codeVerifier: undefined,
    });
  });
  await t.step("a redirect_uri field is ignored: the callback is always this issuer's", () => {
    const form = new URLSearchParams({ redirect_uri: "https://evil.example/cb", pkce: "on" });
    const result = readDebuggerForm(form, ISSUER);
    assert.ok(result.ok);
    assert.equal(result.session.redirectUri, ISSUER.redirectUri);
    assert.match(result.session.codeVerifier!, /^[\w-]{43}$/);
  });
  await t.step("every field at the bound passes, one above fails with its own error", () => {
    for (const name of ["client_id", "client_secret", "scope", "state", "nonce"]) {
      const at = readDebuggerForm(
        new URLSearchParams({ [name]: "a".repeat(FIELD_MAX_CHARS) }),
        ISSUER,
      );
      assert.ok(at.ok, name);
      const over = readDebuggerForm(
        new URLSearchParams({ [name]: "a".repeat(FIELD_MAX_CHARS + 1) }),
        ISSUER,
      );
      assert.ok(!over.ok);
      assert.deepEqual(Object.keys(over.errors), [name]);
    }
  });
  await t.step("the form's defaults are not changed by a post", () => {
    readDebuggerForm(new URLSearchParams({ client_id: "changed" }), ISSUER);
    assert.equal(DEBUGGER_DEFAULTS.client_id, "debugger");
  });
});

Deno.test("PKCE S256 challenges match what oauth4webapi computes", async () => {
  assert.equal(
    await codeChallengeOf("dBjftJeZ4CVP-mJ92K9HnNpa3PakFMnPrVkU3cgH7xo"),
    await calculatePKCECodeChallenge("dBjftJeZ4CVP-mJ92K9HnNpa3PakFMnPrVkU3cgH7xo"),
  );
  const verifier = newCodeVerifier();
  assert.notEqual(verifier, newCodeVerifier());
  assert.equal(await codeChallengeOf(verifier), await calculatePKCECodeChallenge(verifier));
});

Deno.test("authorizeUrl carries the session and leaves out empty optional values", async () => {
  const result = readDebuggerForm(
    new URLSearchParams({ scope: "", state: "", nonce: "", pkce: "on" }),
    ISSUER,
  );
  assert.ok(result.ok);
  const url = new URL(await authorizeUrl("http://h/default", result.session));
  assert.equal(url.origin + url.pathname, "http://h/default/authorize");
  assert.deepEqual([...url.searchParams.keys()].sort(), [
    "client_id",
    "code_challenge",
    "code_challenge_method",
    "redirect_uri",
    "response_mode",
    "response_type",
  ]);
});
