/**
 * MCP authorization end to end, with the TypeScript MCP SDK's own OAuth client (`auth()` through
 * `StreamableHTTPClientTransport`'s `authProvider`) against mcp-server and mock-oidc running as
 * real processes with their deployed permissions: discovery from the 401, registration (RFC 7591,
 * or a client ID metadata document the test serves over https on loopback), authorization code
 * with PKCE S256 and the RFC 8707 resource, token, then `tools/list`. Also the refusals: a token
 * for another resource or for the bare audience `mcp` (401) and one without the scope (403); and
 * `--audience mcp`, the opt-in for tokens minted without a resource.
 */
import assert from "node:assert/strict";
import { type ServiceProcess, startService } from "@svc/testing";
import { MAIN, PERMISSIONS, ROOT } from "./_test_support.ts";
import { startMock } from "../mock-oidc/_test_support.ts";
import { authorizeAndList, claimsOf, MemoryProvider, REDIRECT } from "./_oauth_support.ts";

interface Stack {
  issuer: string;
  mcpUrl: string;
  oidc: ServiceProcess;
  server: ServiceProcess;
  stop(): Promise<void>;
}

async function startStack(
  oidcEnv: Record<string, string> = {},
  serverArgs: string[] = [],
): Promise<Stack> {
  const oidc = await startMock({ env: oidcEnv });
  const issuer = `${oidc.url}/mcp-oauth`;
  let server: ServiceProcess;
  try {
    server = await startService({
      entry: MAIN,
      cwd: ROOT,
      args: ["--transport", "http", "--addr", "127.0.0.1:0", "--issuer", issuer, ...serverArgs],
      env: { NO_COLOR: "1" },
      permissions: [...PERMISSIONS],
      timeoutMs: 30_000,
    });
  } catch (err) {
    await oidc.stop();
    throw err;
  }
  return {
    issuer,
    mcpUrl: `${server.url}/mcp`,
    oidc,
    server,
    async stop() {
      await server.stop();
      await oidc.stop();
    },
  };
}

function assertAuthorizationRequest(url: URL, stack: Stack, clientId: string) {
  assert.equal(`${url.origin}${url.pathname}`, `${stack.issuer}/authorize`);
  assert.equal(url.searchParams.get("client_id"), clientId);
  assert.equal(url.searchParams.get("response_type"), "code");
  assert.equal(url.searchParams.get("code_challenge_method"), "S256");
  assert.match(url.searchParams.get("code_challenge")!, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(url.searchParams.get("resource"), stack.mcpUrl);
  // the scope came from the server's challenge / metadata
  assert.equal(url.searchParams.get("scope"), "mcp");
  assert.equal(url.searchParams.get("redirect_uri"), REDIRECT);
}

Deno.test("MCP SDK OAuth: dynamic registration, PKCE S256 with resource, token, tools/list", async () => {
  const stack = await startStack();
  try {
    const provider = new MemoryProvider();
    const { url, tools } = await authorizeAndList(stack.mcpUrl, provider);
    assert.deepEqual(tools, ["describe_api", "execute", "search_api"]);
    const clientId = provider.client!.client_id;
    assert.match(clientId, /^[0-9a-f-]{36}$/); // registered, not made up
    assert.equal(provider.registrations, 1);
    assertAuthorizationRequest(url, stack, clientId);
    const access = claimsOf(provider.stored!.access_token);
    assert.equal(access.aud, stack.mcpUrl);
    assert.equal(access.scope, "mcp");
    assert.equal(access.iss, stack.issuer);
    assert.equal(provider.stored!.scope, "mcp");
    // the control plane lists the registration, without its secrets
    const listed = await (await fetch(`${stack.oidc.url}/_mock/clients`)).json();
    assert.equal(listed.count, 1);
    assert.equal(listed.clients[0].clientId, clientId);
    assert.equal(listed.clients[0].issuer, "mcp-oauth");
    assert.equal(listed.clients[0].tokenEndpointAuthMethod, "none");
    assert.deepEqual(listed.clients[0].redirectUris, [REDIRECT]);
  } finally {
    await stack.stop();
  }
});

/** A CA and a loopback leaf it signs (rustls refuses a self-signed CA as a server's own). */
async function loopbackTls(dir: string) {
  const script = `set -e; cd "${dir}"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key \\
      -out ca.pem -days 1 -subj /CN=e2e-ca
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout key.pem \\
      -out leaf.csr -subj /CN=127.0.0.1
    printf 'subjectAltName=IP:127.0.0.1\\n' > ext.cnf
    openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 \\
      -extfile ext.cnf -out cert.pem`;
  const gen = await new Deno.Command("bash", {
    args: ["-c", script],
    stdout: "null",
    stderr: "piped",
  })
    .output();
  assert.ok(gen.success, new TextDecoder().decode(gen.stderr));
  return {
    ca: `${dir}/ca.pem`,
    cert: await Deno.readTextFile(`${dir}/cert.pem`),
    key: await Deno.readTextFile(`${dir}/key.pem`),
  };
}

Deno.test("MCP SDK OAuth: a client ID metadata document served by the test over https", async () => {
  const dir = await Deno.makeTempDir();
  const tls = await loopbackTls(dir);
  let fetched = 0;
  const docs = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: tls.cert, key: tls.key, onListen() {} },
    (req) => {
      const url = new URL(req.url);
      if (url.pathname !== "/oauth/client.json") return new Response("no", { status: 404 });
      fetched++;
      return Response.json({
        client_id: url.href,
        client_name: "mcp e2e (metadata document)",
        redirect_uris: [REDIRECT],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      }, { headers: { "cache-control": "max-age=300" } });
    },
  );
  const documentUrl = `https://127.0.0.1:${docs.addr.port}/oauth/client.json`;
  // mock-oidc trusts the test's CA the way a deployment trusts its own: DENO_CERT.
  const stack = await startStack({ DENO_CERT: tls.ca });
  try {
    const discovery = await (await fetch(`${stack.issuer}/.well-known/oauth-authorization-server`))
      .json();
    assert.equal(discovery.client_id_metadata_document_supported, true);
    const provider = new MemoryProvider(documentUrl);
    const { url, tools } = await authorizeAndList(stack.mcpUrl, provider);
    assert.deepEqual(tools, ["describe_api", "execute", "search_api"]);
    assert.equal(provider.client!.client_id, documentUrl); // no registration
    assertAuthorizationRequest(url, stack, documentUrl);
    const access = claimsOf(provider.stored!.access_token);
    assert.equal(access.aud, stack.mcpUrl);
    assert.equal(access.azp, documentUrl);
    // fetched once at authorize, then reused from the cache (max-age=300) at the token endpoint
    assert.equal(fetched, 1);
    const listed = await (await fetch(`${stack.oidc.url}/_mock/clients`)).json();
    assert.equal(listed.count, 0);
  } finally {
    await stack.stop();
    await docs.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a token for another resource is 401, one without the scope 403, each with its challenge", async (t) => {
  const stack = await startStack();
  const challengeBase =
    `Bearer resource_metadata="${stack.server.url}/.well-known/oauth-protected-resource", scope="mcp"`;
  const token = async (form: Array<[string, string]>) => {
    const res = await fetch(`${stack.issuer}/token`, {
      method: "POST",
      body: new URLSearchParams([["grant_type", "client_credentials"], ["client_id", "svc"], [
        "client_secret",
        "s",
      ], ...form]),
    });
    assert.equal(res.status, 200);
    return (await res.json()).access_token as string;
  };
  const list = (bearer?: string) =>
    fetch(stack.mcpUrl, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
  try {
    await t.step("metadata: the resource, the issuer, scopes_supported", async () => {
      const meta =
        await (await fetch(`${stack.server.url}/.well-known/oauth-protected-resource/mcp`)).json();
      assert.deepEqual(meta, {
        resource: stack.mcpUrl,
        authorization_servers: [stack.issuer],
        bearer_methods_supported: ["header"],
        resource_name: "mcp-server",
        scopes_supported: ["mcp"],
      });
    });
    await t.step("no token: 401 with resource_metadata and scope", async () => {
      const res = await list();
      assert.equal(res.status, 401);
      assert.equal(res.headers.get("www-authenticate"), challengeBase);
      await res.body?.cancel();
    });
    await t.step("another resource: 401 invalid_token", async () => {
      const res = await list(
        await token([["scope", "mcp"], ["resource", "https://other.example/mcp"]]),
      );
      assert.equal(res.status, 401);
      assert.equal(res.headers.get("www-authenticate"), `${challengeBase}, error="invalid_token"`);
      assert.equal((await res.json()).error, "invalid_token");
    });
    await t.step("this resource without the scope: 403 insufficient_scope naming it", async () => {
      const res = await list(await token([["scope", "other"], ["resource", stack.mcpUrl]]));
      assert.equal(res.status, 403);
      assert.equal(
        res.headers.get("www-authenticate"),
        `${challengeBase}, error="insufficient_scope"`,
      );
      assert.deepEqual(await res.json(), {
        error: "insufficient_scope",
        error_description: "The access token lacks the required scope: mcp",
      });
    });
    await t.step("this resource with the scope: 200", async () => {
      const res = await list(await token([["scope", "mcp"], ["resource", stack.mcpUrl]]));
      assert.equal(res.status, 200);
      assert.equal((await res.json()).result.tools.length, 3);
    });
    await t.step("a token minted without resource (aud mcp): 401 invalid_token", async () => {
      const res = await list(await token([["scope", "mcp"]]));
      assert.equal(res.status, 401);
      assert.equal(res.headers.get("www-authenticate"), `${challengeBase}, error="invalid_token"`);
      await res.body?.cancel();
    });
  } finally {
    await stack.stop();
  }
});

Deno.test("--audience mcp opts in to tokens minted without resource; the resource URI still passes", async () => {
  const stack = await startStack({}, ["--audience", "mcp"]);
  const token = async (form: Array<[string, string]>) => {
    const res = await fetch(`${stack.issuer}/token`, {
      method: "POST",
      body: new URLSearchParams([
        ["grant_type", "client_credentials"],
        ["client_id", "svc"],
        ...form,
      ]),
    });
    assert.equal(res.status, 200);
    return (await res.json()).access_token as string;
  };
  const list = async (bearer: string) => {
    const res = await fetch(stack.mcpUrl, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${bearer}`,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    return { status: res.status, body: await res.json() };
  };
  try {
    const legacy = await token([["scope", "mcp"]]);
    assert.equal(claimsOf(legacy).aud, "mcp");
    const byMcp = await list(legacy);
    assert.equal(byMcp.status, 200);
    assert.equal(byMcp.body.result.tools.length, 3);
    const byResource = await list(await token([["scope", "mcp"], ["resource", stack.mcpUrl]]));
    assert.equal(byResource.status, 200);
    const other = await list(
      await token([["scope", "mcp"], ["resource", "https://other.example/mcp"]]),
    );
    assert.equal(other.status, 401);
    assert.equal(other.body.error, "invalid_token");
  } finally {
    await stack.stop();
  }
});
