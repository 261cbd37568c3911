/**
 * `deno task dev` is OAuth-ready: mock-oidc and mcp-server started with exactly the `devArgs` and
 * permissions of `deploy/services.ts`, only their ports moved to free ones (the dev ports may be
 * taken on a shared machine), and an MCP SDK client given the server's `/mcp` URL completes
 * discovery, registration, authorization (no login page), token and `tools/list` with no manual
 * step, either registering dynamically or naming a plain-http client ID metadata document on
 * loopback (which the dev flag allows).
 */
import assert from "node:assert/strict";
import { type ServiceProcess, startService } from "@svc/testing";
import { SERVICES } from "../../deploy/services.ts";
import { authorizeAndList, claimsOf, MemoryProvider, REDIRECT } from "./_oauth_support.ts";
import { ROOT } from "./_test_support.ts";

const oidcDev = SERVICES.find((s) => s.name === "mock-oidc")!;
const mcpDev = SERVICES.find((s) => s.name === "mcp-server")!;

function argOf(args: readonly string[], flag: string): string {
  const at = args.indexOf(flag);
  assert.ok(at >= 0, `devArgs carry ${flag}`);
  return args[at + 1];
}

/** A port nobody listens on right now. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/**
 * The dev args with every occurrence of each dev port replaced, less the `--openapi*` pairs: they
 * expose todo-api, which this test does not start (authorization is what it is about;
 * `deploy/dev_test.ts` runs the whole stack).
 */
function moved(args: readonly string[], ports: Record<string, number>): string[] {
  const kept = args.filter((a, i) =>
    !a.startsWith("--openapi") && !args[i - 1]?.startsWith("--openapi")
  );
  return kept.map((a) =>
    Object.entries(ports).reduce((text, [from, to]) => text.replaceAll(from, String(to)), a)
  );
}

Deno.test("dev args: mcp-server names mock-oidc's issuer and its own origin as the resource", () => {
  const oidcAddr = argOf(oidcDev.devArgs, "--addr");
  const mcpAddr = argOf(mcpDev.devArgs, "--addr");
  assert.equal(argOf(mcpDev.devArgs, "--issuer"), `http://${oidcAddr}/default`);
  assert.equal(argOf(mcpDev.devArgs, "--public-origin"), `http://${mcpAddr}`);
  assert.equal(mcpAddr, "127.0.0.1:8090"); // what the README tells clients
  assert.ok(oidcDev.devArgs.includes("--client-metadata-allow-http-loopback"));
});

Deno.test("dev stack: the MCP SDK client authorizes with no manual step", async (t) => {
  const ports: Record<string, number> = {};
  for (const dev of ["8080", "9090", "8090", "9092"]) ports[dev] = freePort();
  const start = (svc: typeof oidcDev) =>
    startService({
      entry: svc.entry,
      cwd: ROOT,
      args: moved(svc.devArgs, ports),
      env: { NO_COLOR: "1", JSON_CONFIG: "{}" },
      permissions: [...svc.permissions],
      listeners: ["api", "metrics"],
      timeoutMs: 30_000,
    });
  const oidc = await start(oidcDev);
  let mcp: ServiceProcess | undefined;
  const docs = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req) =>
      Response.json({
        client_id: req.url,
        client_name: "dev metadata document",
        redirect_uris: [REDIRECT],
        grant_types: ["authorization_code", "refresh_token"],
        token_endpoint_auth_method: "none",
      }),
  );
  try {
    mcp = await start(mcpDev);
    const mcpUrl = `http://127.0.0.1:${ports["8090"]}/mcp`;
    await t.step("dynamic registration", async () => {
      const provider = new MemoryProvider();
      const { tools, url } = await authorizeAndList(mcpUrl, provider);
      assert.deepEqual(tools, ["describe_api", "execute", "search_api"]);
      assert.equal(url.origin, `http://127.0.0.1:${ports["8080"]}`);
      assert.equal(url.searchParams.get("resource"), mcpUrl);
      assert.equal(claimsOf(provider.stored!.access_token).aud, mcpUrl);
    });
    await t.step("a plain-http client ID metadata document on loopback", async () => {
      // The SDK takes only https document URLs itself; a host that has the id already (as
      // clients configured with a client id do) hands it over as client information.
      const documentUrl = `http://127.0.0.1:${docs.addr.port}/client.json`;
      const provider = new MemoryProvider();
      provider.client = { client_id: documentUrl };
      const { tools } = await authorizeAndList(mcpUrl, provider);
      assert.deepEqual(tools, ["describe_api", "execute", "search_api"]);
      assert.equal(provider.client!.client_id, documentUrl);
      // only the first step's client registered
      const listed = await (await fetch(`${oidc.url}/_mock/clients`)).json();
      assert.equal(listed.count, 1);
      assert.equal(claimsOf(provider.stored!.access_token).azp, documentUrl);
    });
  } finally {
    await mcp?.stop();
    await oidc.stop();
    await docs.shutdown();
  }
});
