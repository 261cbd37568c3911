import assert from "node:assert/strict";
import { errorResponse, HttpError } from "@svc/shared/problem";
import { invalidClient, invalidGrant, invalidToken, OAuthError } from "./oauth_error.ts";
import { harness } from "./_test_support.ts";

Deno.test("an OAuthError is an HttpError whose stable code is the RFC 6749 error", () => {
  const err = invalidGrant("the code was used");
  assert.ok(err instanceof HttpError);
  assert.equal(err.code, "invalid_grant");
  assert.equal(err.status, 400);
  assert.equal(err.name, "OAuthError");
});

Deno.test("the one error boundary renders an OAuthError as its RFC 6749 body, never cached", async () => {
  const res = errorResponse(invalidClient("unknown client"), { instance: "/default/token" });
  assert.equal(res.status, 401);
  assert.equal(res.headers.get("content-type"), "application/json");
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.equal(res.headers.get("www-authenticate"), 'Basic realm="mock-oidc"');
  assert.deepEqual(await res.json(), {
    error: "invalid_client",
    error_description: "unknown client",
  });
  const bearer = errorResponse(invalidToken('bad "quoted" token'));
  assert.equal(
    bearer.headers.get("www-authenticate"),
    'Bearer error="invalid_token", error_description="bad quoted token"',
  );
  await bearer.body?.cancel();
});

Deno.test("an endpoint's OAuthError reaches the client through the boundary; to HEAD without a body", async () => {
  const h = harness();
  const get = await h.call("/default/userinfo");
  assert.equal(get.status, 401);
  assert.deepEqual(await get.json(), {
    error: "invalid_token",
    error_description: "missing Bearer access token",
  });
  const head = await h.call("/default/userinfo", { method: "HEAD" });
  assert.equal(head.status, 401);
  assert.equal(head.headers.get("content-type"), "application/json");
  assert.match(head.headers.get("www-authenticate") ?? "", /^Bearer/);
  assert.equal(head.body, null, "HEAD answers the headers alone, as before");
  const thrown = new OAuthError(400, "invalid_scope", "scope exceeds the grant");
  assert.equal(thrown.toResponse().status, 400);
});
