/**
 * Step-up authorization end to end: mcp-server (its deployed permissions, a policy file whose
 * `scopes` guard `records.put` with `records:write`) and mock-oidc as real processes. A token with
 * the base scope gets 403 `insufficient_scope` naming the scopes the program needs; a token with
 * them runs it; the TypeScript MCP SDK's OAuth client follows the challenge to the authorization
 * endpoint with those scopes, and its new token runs the program.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { startHttpStack } from "./_test_support.ts";
import { authorizeAndList, claimsOf, MemoryProvider } from "./_oauth_support.ts";

const POLICY = {
  rules: [{ subjects: ["*"], capabilities: ["*"] }],
  scopes: [{ capabilities: ["records.put"], scopes: ["records:write"] }],
};
const PUT = "def main():\n    return records.put(key='k', value='v')['record']['value']\n";
const GET = "def main():\n    return records.get(key='nope')['record']\n";

/** A host that keeps no refresh token, so a step-up goes back to the authorization endpoint. */
class NoRefreshProvider extends MemoryProvider {
  override saveTokens(tokens: OAuthTokens) {
    const { refresh_token: _dropped, ...rest } = tokens;
    this.stored = rest;
  }
}

Deno.test("step-up: base scope 403 naming the program's scopes, the scope runs, the SDK follows", async (t) => {
  const dir = await Deno.makeTempDir();
  const policy = `${dir}/policy.json`;
  await Deno.writeTextFile(policy, JSON.stringify(POLICY));
  let stack: Awaited<ReturnType<typeof startHttpStack>> | undefined;
  try {
    stack = await startHttpStack(["--policy", policy]);
    const { issuer, mcpUrl, server } = stack;
    const metadataUrl = `${server.url}/.well-known/oauth-protected-resource`;
    const token = async (scope: string) => {
      const res = await fetch(`${issuer}/token`, {
        method: "POST",
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: "svc",
          client_secret: "s",
          scope,
          resource: mcpUrl,
        }),
      });
      assert.equal(res.status, 200);
      return (await res.json()).access_token as string;
    };
    const execute = (bearer: string, source: string) =>
      fetch(mcpUrl, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${bearer}`,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "execute", arguments: { source } },
        }),
      });

    await t.step("the metadata lists the step-up scope", async () => {
      const meta = await (await fetch(metadataUrl)).json();
      assert.deepEqual(meta.scopes_supported, ["mcp", "records:write"]);
    });
    await t.step("the base scope: 403 insufficient_scope with the scopes needed", async () => {
      const res = await execute(await token("mcp"), PUT);
      assert.equal(res.status, 403);
      assert.equal(
        res.headers.get("www-authenticate"),
        `Bearer resource_metadata="${metadataUrl}", scope="mcp records:write", ` +
          `error="insufficient_scope"`,
      );
      assert.equal((await res.json()).error, "insufficient_scope");
    });
    await t.step("the base scope runs a program without a guarded capability", async () => {
      const res = await execute(await token("mcp"), GET);
      assert.equal(res.status, 200);
      assert.deepEqual((await res.json()).result.structuredContent, { result: null });
    });
    await t.step("a token with the scope runs it", async () => {
      const res = await execute(await token("mcp records:write"), PUT);
      assert.equal(res.status, 200);
      assert.deepEqual((await res.json()).result.structuredContent, { result: "v" });
    });
    await t.step("the SDK's OAuth client follows the challenge", async () => {
      const provider = new NoRefreshProvider();
      await authorizeAndList(mcpUrl, provider); // the base grant: scope mcp, from the 401
      assert.equal(claimsOf(provider.stored!.access_token).scope, "mcp");
      provider.authorizationUrl = undefined;
      const client = new Client({ name: "step-up", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }),
      );
      try {
        // the call gets 403; the SDK asks for the challenge's scopes at the authorization endpoint
        await assert.rejects(
          client.callTool({ name: "execute", arguments: { source: PUT } }),
          UnauthorizedError,
        );
      } finally {
        await client.close();
      }
      const url = provider.authorizationUrl as URL | undefined;
      assert.ok(url, "the SDK sent the user to the authorization endpoint again");
      assert.equal(url.searchParams.get("scope"), "mcp records:write");
      assert.equal(url.searchParams.get("resource"), mcpUrl);
      const res = await fetch(url, { redirect: "manual" });
      assert.equal(res.status, 302);
      await res.body?.cancel();
      const code = new URL(res.headers.get("location")!).searchParams.get("code")!;
      const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
        authProvider: provider,
      });
      await transport.finishAuth(code);
      assert.equal(claimsOf(provider.stored!.access_token).scope, "mcp records:write");
      const again = new Client({ name: "step-up", version: "1.0.0" });
      await again.connect(transport);
      try {
        const result = await again.callTool({
          name: "execute",
          arguments: { source: PUT },
        }) as CallToolResult;
        assert.deepEqual(result.structuredContent, { result: "v" });
      } finally {
        await again.close();
      }
    });
  } finally {
    await stack?.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
