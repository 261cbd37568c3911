/**
 * The MCP host side of the OAuth end-to-end tests: an in-memory `OAuthClientProvider` and the
 * flow a host runs with the SDK (connect, 401, browser to the authorization URL, code back,
 * `finishAuth`, connect again).
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";

/** The redirect URI of the test client (never served: the test reads `Location`). */
export const REDIRECT = "http://127.0.0.1:9/oauth/callback";

/** An in-memory OAuth client as an MCP host keeps one; the browser step is a manual fetch. */
export class MemoryProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  stored?: OAuthTokens;
  verifier = "";
  authorizationUrl?: URL;
  registrations = 0;
  constructor(readonly clientMetadataUrl?: string) {}
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "mcp e2e",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.registrations++;
    this.client = info;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: OAuthTokens) {
    this.stored = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/**
 * What an MCP host does: connect, get UnauthorizedError with the browser sent to the
 * authorization URL, take the code from the redirect, finish, connect again.
 */
export async function authorizeAndList(mcpUrl: string, provider: MemoryProvider) {
  const first = new Client({ name: "e2e-oauth", version: "1.0.0" });
  await assert.rejects(
    first.connect(
      new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }),
    ),
    UnauthorizedError,
  );
  const url = provider.authorizationUrl!;
  assert.ok(url, "the SDK sent the user to the authorization endpoint");
  // The browser: no login page (interactiveLogin off), the code is issued at once.
  const res = await fetch(url, { redirect: "manual" });
  assert.equal(res.status, 302);
  await res.body?.cancel();
  const back = new URL(res.headers.get("location")!);
  assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
  const code = back.searchParams.get("code");
  assert.ok(code, `authorize answered ${back.search}`);
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    authProvider: provider,
  });
  await transport.finishAuth(code);
  const client = new Client({ name: "e2e-oauth", version: "1.0.0" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    return { url, tools: tools.map((t: { name: string }) => t.name).sort() };
  } finally {
    await client.close();
  }
}

/** The payload of a JWT (tests only; no verification). */
export function claimsOf(token: string): Record<string, unknown> {
  const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
  return JSON.parse(atob(part + "=".repeat((4 - part.length % 4) % 4)));
}
