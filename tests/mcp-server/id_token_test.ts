/**
 * ID tokens are not access tokens, end to end: mcp-server and mock-oidc as shipped (the permission
 * and V8 flags of `deploy/services.ts`), the tokens from mock-oidc's own authorization code flow,
 * client credentials and mint control plane. By default only tokens whose `aud` names the
 * server's resource URI pass, so neither an ID token of a client named `mcp` nor an access token
 * minted for `mcp` does; `--audience mcp` opts in to the latter, never to the former, even with
 * no scope required (`--scopes ""`), where only the token's kind stands between an ID token and
 * the tools.
 */
import assert from "node:assert/strict";
import type { ServiceProcess } from "@svc/testing";
import { startShipped } from "../_shipped.ts";
import { claimsOf } from "./_oauth_support.ts";

const REDIRECT = "http://127.0.0.1:9/callback";

/** mock-oidc's authorization code flow (no login page): the token response. */
async function codeFlow(
  issuer: string,
  params: { clientId: string; scope: string; nonce?: string; resource?: string },
): Promise<{ access_token: string; id_token: string }> {
  const authorize = new URL(`${issuer}/authorize`);
  authorize.search = new URLSearchParams({
    client_id: params.clientId,
    response_type: "code",
    redirect_uri: REDIRECT,
    scope: params.scope,
    state: "s-1",
    ...(params.nonce === undefined ? {} : { nonce: params.nonce }),
    ...(params.resource === undefined ? {} : { resource: params.resource }),
  }).toString();
  const res = await fetch(authorize, { redirect: "manual" });
  assert.equal(res.status, 302);
  await res.body?.cancel();
  const code = new URL(res.headers.get("location")!).searchParams.get("code");
  assert.ok(code, res.headers.get("location") ?? "no location");
  const token = await fetch(`${issuer}/token`, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      client_id: params.clientId,
      redirect_uri: REDIRECT,
    }),
  });
  assert.equal(token.status, 200);
  return await token.json();
}

/** mock-oidc's client credentials grant: the access token. */
async function clientCredentials(issuer: string, form: Record<string, string>): Promise<string> {
  const res = await fetch(`${issuer}/token`, {
    method: "POST",
    body: new URLSearchParams({ grant_type: "client_credentials", client_id: "svc", ...form }),
  });
  assert.equal(res.status, 200);
  return (await res.json()).access_token;
}

/** `tools/list` with the token: status, challenge and body. */
async function list(mcpUrl: string, token: string) {
  const res = await fetch(mcpUrl, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  return {
    status: res.status,
    challenge: res.headers.get("www-authenticate"),
    body: await res.json(),
  };
}

function assertServed(res: Awaited<ReturnType<typeof list>>) {
  assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 200));
  assert.equal(res.body.result.tools.length, 3);
}

function assertInvalidToken(res: Awaited<ReturnType<typeof list>>, server: ServiceProcess) {
  assert.equal(res.status, 401, JSON.stringify(res.body).slice(0, 200));
  assert.match(
    res.challenge ?? "",
    new RegExp(
      `^Bearer resource_metadata="${
        RegExp.escape(`${server.url}/.well-known/oauth-protected-resource`)
      }"(, scope="mcp")?, error="invalid_token"$`,
    ),
  );
  assert.deepEqual(res.body, {
    error: "invalid_token",
    error_description: "The access token is invalid or expired",
  });
}

Deno.test("shipped mcp-server and mock-oidc: ID tokens and tokens for `mcp` by default and with --audience mcp", async (t) => {
  const oidc = await startShipped("mock-oidc", {
    args: ["--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"],
    listeners: ["api", "metrics"],
  });
  const issuer = `${oidc.url}/e2e`;
  const servers: ServiceProcess[] = [];
  const start = async (args: string[]) => {
    const server = await startShipped("mcp-server", {
      args: ["--transport", "http", "--addr", "127.0.0.1:0", ...args],
      env: { MCP_ISSUER: issuer },
    });
    servers.push(server);
    return { server, mcpUrl: `${server.url}/mcp` };
  };
  try {
    const plain = await start([]);
    // An OIDC login of the client `mcp`, as any OIDC client does it: with a nonce.
    const login = await codeFlow(issuer, {
      clientId: "mcp",
      scope: "openid mcp",
      nonce: "n-0S6_WzA2Mj",
      resource: plain.mcpUrl,
    });
    const idToken = login.id_token;
    assert.equal(claimsOf(idToken).aud, "mcp");
    assert.equal(claimsOf(idToken).nonce, "n-0S6_WzA2Mj");
    const forMcp = await clientCredentials(issuer, { scope: "mcp" });
    assert.equal(claimsOf(forMcp).aud, "mcp");

    await t.step("default: an ID token of the client mcp is 401 invalid_token", async () => {
      assertInvalidToken(await list(plain.mcpUrl, idToken), plain.server);
    });
    await t.step("default: an access token for aud mcp is 401 invalid_token", async () => {
      assertInvalidToken(await list(plain.mcpUrl, forMcp), plain.server);
    });
    await t.step("default: access tokens for the resource URI are served", async () => {
      const granted = await clientCredentials(issuer, { scope: "mcp", resource: plain.mcpUrl });
      assert.equal(claimsOf(granted).aud, plain.mcpUrl);
      assertServed(await list(plain.mcpUrl, granted));
      // the code flow as MCP clients run it (no nonce): azp, tid, scope, header typ JWT
      const code = await codeFlow(issuer, {
        clientId: "mcp-client",
        scope: "mcp",
        resource: plain.mcpUrl,
      });
      assert.equal(claimsOf(code.access_token).azp, "mcp-client");
      assertServed(await list(plain.mcpUrl, code.access_token));
      // its ID token names the client, not the resource
      assertInvalidToken(await list(plain.mcpUrl, code.id_token), plain.server);
      // RFC 9068 at+jwt, minted
      const res = await fetch(`${oidc.url}/_mock/mint`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          issuer: "e2e",
          audience: [plain.mcpUrl],
          scope: ["mcp"],
          typ: "at+jwt",
        }),
      });
      assert.equal(res.status, 200);
      assertServed(await list(plain.mcpUrl, (await res.json()).token));
    });
    await t.step("default: an access token carrying the login's nonce is 401", async () => {
      // mock-oidc copies the authorization request's nonce into the access token too (as
      // navikt's mock-oauth2-server and Keycloak before 25 do); a nonce marks an ID token here
      assert.equal(claimsOf(login.access_token).aud, plain.mcpUrl);
      assert.equal(claimsOf(login.access_token).nonce, "n-0S6_WzA2Mj");
      assertInvalidToken(await list(plain.mcpUrl, login.access_token), plain.server);
    });

    const optIn = await start(["--audience", "mcp", "--scopes", ""]);
    await t.step("--audience mcp --scopes '': an access token for aud mcp is served", async () => {
      assertServed(await list(optIn.mcpUrl, forMcp));
    });
    await t.step("--audience mcp --scopes '': the ID token of the client mcp is 401", async () => {
      assertInvalidToken(await list(optIn.mcpUrl, idToken), optIn.server);
    });
    await t.step("--audience mcp --scopes '': a minted ID token with at_hash is 401", async () => {
      const res = await fetch(`${oidc.url}/_mock/mint`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          issuer: "e2e",
          kind: "id_token",
          clientId: "mcp",
          audience: ["mcp"],
          claims: { at_hash: "77QmUPtjPfzWtF2AnpK9RQ" },
        }),
      });
      assert.equal(res.status, 200);
      assertInvalidToken(await list(optIn.mcpUrl, (await res.json()).token), optIn.server);
    });
  } finally {
    for (const server of servers) assert.equal(await server.stop(), 0, server.output());
    await oidc.stop();
  }
});
