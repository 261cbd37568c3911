/**
 * Bounds of the protocol routes, against the process as shipped: a code is redeemed with the
 * `redirect_uri` its authorization request carried (unless `--code-redirect-uri-optional`, for
 * teams migrating from upstream), and a client ID metadata document URL names exactly the URL
 * fetched (no percent-encoded dot segment points the fetch elsewhere).
 */
import assert from "node:assert/strict";
import { postForm, startOidc } from "./_test_support.ts";

const REDIRECT = "http://127.0.0.1:1/cb";

async function codeOf(base: string, clientId = "app"): Promise<string> {
  const query = new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: "code",
    scope: "openid",
  });
  const res = await fetch(`${base}/default/authorize?${query}`, { redirect: "manual" });
  await res.body?.cancel();
  assert.equal(res.status, 302);
  return new URL(res.headers.get("location")!).searchParams.get("code")!;
}

function redeem(base: string, code: string, redirectUri?: string) {
  const form = new URLSearchParams({ grant_type: "authorization_code", code, client_id: "app" });
  if (redirectUri !== undefined) form.set("redirect_uri", redirectUri);
  return postForm(`${base}/default/token`, String(form));
}

Deno.test("as shipped: a code needs its redirect_uri unless --code-redirect-uri-optional", async (t) => {
  const strict = await startOidc();
  const relaxed = await startOidc({}, { env: { MOCK_OIDC_CODE_REDIRECT_URI_OPTIONAL: "true" } });
  try {
    await t.step("default: omitted is 400 invalid_grant", async () => {
      assert.deepEqual(await redeem(strict.url, await codeOf(strict.url)), {
        status: 400,
        body: {
          error: "invalid_grant",
          error_description: "redirect_uri is required: the authorization request carried one",
        },
      });
    });
    await t.step("default: the same redirect_uri is 200", async () => {
      const res = await redeem(strict.url, await codeOf(strict.url), REDIRECT);
      assert.equal(res.status, 200);
      assert.equal(typeof res.body.id_token, "string");
    });
    await t.step("relaxed: omitted is 200, a different one still 400", async () => {
      const res = await redeem(relaxed.url, await codeOf(relaxed.url));
      assert.equal(res.status, 200);
      assert.equal(typeof res.body.access_token, "string");
      assert.deepEqual(await redeem(relaxed.url, await codeOf(relaxed.url), `${REDIRECT}/x`), {
        status: 400,
        body: {
          error: "invalid_grant",
          error_description: "redirect_uri differs from the authorization request",
        },
      });
    });
  } finally {
    await Promise.all([strict.stop(), relaxed.stop()]);
  }
});

Deno.test("as shipped: a percent-encoded dot segment in a client ID URL is refused, nothing fetched", async () => {
  const paths: string[] = [];
  // A document server that vouches for any client id it is asked about.
  const docs: Deno.HttpServer<Deno.NetAddr> = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen() {},
  }, (req) => {
    paths.push(new URL(req.url).pathname);
    return Response.json({
      client_id: `http://127.0.0.1:${docs.addr.port}/a/%2e%2e/doc`,
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
    });
  });
  const mock = await startOidc({}, { args: ["--client-metadata-allow-http-loopback"] });
  try {
    for (const dots of ["%2e%2e", "%2E%2e", ".%2e", "%2e."]) {
      const clientId = `http://127.0.0.1:${docs.addr.port}/a/${dots}/doc`;
      const query = new URLSearchParams({
        client_id: clientId,
        redirect_uri: REDIRECT,
        response_type: "code",
      });
      const res = await fetch(`${mock.url}/default/authorize?${query}`, { redirect: "manual" });
      assert.equal(res.status, 400);
      assert.deepEqual(await res.json(), {
        error: "invalid_client",
        error_description:
          `Cannot use client_id ${clientId}: the URL must have a path without . or .. segments`,
      });
    }
    assert.deepEqual(paths, []);
  } finally {
    await Promise.all([mock.stop(), docs.shutdown()]);
  }
});
