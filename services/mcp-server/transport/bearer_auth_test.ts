import assert from "node:assert/strict";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { localInfo } from "@svc/shared/http";
import { createLogger } from "@svc/shared/log";
import { createBearerVerifier } from "../auth/bearer.ts";
import { allowAll } from "../auth/authorizer.ts";
import { createDemoRegistry } from "../demo/host.ts";
import { DEFAULT_LIMITS } from "../limits.ts";
import { SETTINGS } from "../settings.ts";
import { createExecutePool } from "../tools/server.ts";
import { createApp } from "../app.ts";

/** An issuer (discovery + JWKS) on loopback and a signer of its tokens. */
async function issuerServer() {
  const { publicKey, privateKey } = await generateKeyPair("ES256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256", use: "sig" };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/iss/.well-known/openid-configuration") {
      return Response.json({ issuer: `${url.origin}/iss`, jwks_uri: `${url.origin}/iss/jwks` });
    }
    if (url.pathname === "/iss/jwks") return Response.json({ keys: [jwk] });
    return new Response("no", { status: 404 });
  });
  const issuer = `http://127.0.0.1:${server.addr.port}/iss`;
  const sign = (claims: Record<string, unknown>, typ?: string) =>
    new SignJWT({ sub: "alice", ...claims }).setProtectedHeader({ alg: "ES256", kid: "k1", typ })
      .setIssuedAt().setIssuer(issuer).setExpirationTime("5m").sign(privateKey);
  return { issuer, sign, close: () => server.shutdown() };
}

const ORIGIN = "https://mcp.example";
const RESOURCE = `${ORIGIN}/mcp`;
const LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });

Deno.test("the resource URI, --audience and the scopes decide: 200, 401 or 403", async (t) => {
  const iss = await issuerServer();
  const pool = createExecutePool(DEFAULT_LIMITS);
  const app = (options: { publicOrigin?: string; scopes?: string[]; audience?: string }) =>
    createApp({
      registry: createDemoRegistry(),
      authorizer: allowAll(),
      limits: DEFAULT_LIMITS,
      pool,
      logger: createLogger({ write: () => {} }),
      verifier: createBearerVerifier({ issuer: iss.issuer, audience: options.audience }),
      publicOrigin: options.publicOrigin,
      scopes: options.scopes,
    }).handler;
  const post = (handler: ReturnType<typeof app>, token?: string, url = "http://127.0.0.1/mcp") =>
    handler(
      new Request(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: LIST,
      }),
      localInfo(),
    );
  try {
    const pinned = app({ publicOrigin: ORIGIN, scopes: ["mcp"], audience: "legacy" });
    await t.step("metadata lists scopes_supported and the canonical resource", async () => {
      const res = await pinned(
        new Request("http://127.0.0.1/.well-known/oauth-protected-resource/mcp"),
        localInfo(),
      );
      assert.deepEqual(await res.json(), {
        resource: RESOURCE,
        authorization_servers: [iss.issuer],
        bearer_methods_supported: ["header"],
        resource_name: "mcp-server",
        scopes_supported: ["mcp"],
      });
    });
    await t.step("no token: 401 with resource_metadata and scope, no error", async () => {
      const res = await post(pinned);
      assert.equal(res.status, 401);
      assert.equal(
        res.headers.get("www-authenticate"),
        `Bearer resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource", scope="mcp"`,
      );
      assert.equal((await res.json()).error, "invalid_request");
    });
    const accepted: Array<[string, Record<string, unknown>]> = [
      ["aud = the resource URI", { aud: RESOURCE, scope: "mcp" }],
      ["aud array holding the resource URI", { aud: ["other", RESOURCE], scope: "openid mcp" }],
      ["aud = --audience", { aud: "legacy", scope: "mcp" }],
    ];
    for (const [what, claims] of accepted) {
      await t.step(`accepted: ${what}`, async () => {
        const res = await post(pinned, await iss.sign(claims));
        assert.equal(res.status, 200);
        assert.equal((await res.json()).result.tools.length, 3);
      });
    }
    const refused: Array<[string, Record<string, unknown>]> = [
      ["another resource", { aud: "https://other.example/mcp", scope: "mcp" }],
      ["the resource with a trailing slash", { aud: `${RESOURCE}/`, scope: "mcp" }],
      ["the resource of another origin", { aud: "http://127.0.0.1/mcp", scope: "mcp" }],
      ["no aud", { scope: "mcp" }],
    ];
    for (const [what, claims] of refused) {
      await t.step(`401 invalid_token: ${what}`, async () => {
        const res = await post(pinned, await iss.sign(claims));
        assert.equal(res.status, 401);
        assert.equal(
          res.headers.get("www-authenticate"),
          `Bearer resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource", ` +
            `scope="mcp", error="invalid_token"`,
        );
        assert.equal((await res.json()).error, "invalid_token");
      });
    }
    for (const scope of [undefined, "", "mcpx", "openid MCP", "mc"]) {
      await t.step(`403 insufficient_scope: scope ${JSON.stringify(scope)}`, async () => {
        const res = await post(pinned, await iss.sign({ aud: RESOURCE, scope }));
        assert.equal(res.status, 403);
        assert.equal(
          res.headers.get("www-authenticate"),
          `Bearer resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource", ` +
            `scope="mcp", error="insufficient_scope"`,
        );
        assert.deepEqual(await res.json(), {
          error: "insufficient_scope",
          error_description: "The access token lacks the required scope: mcp",
        });
      });
    }
    await t.step("without --public-origin the resource follows the request's origin", async () => {
      const open = app({});
      const token = await iss.sign({ aud: "http://localhost:8090/mcp" });
      assert.equal((await post(open, token, "http://localhost:8090/mcp")).status, 200);
      const other = await post(open, token, "http://127.0.0.1:8090/mcp");
      assert.equal(other.status, 401);
      // no scopes configured: no scope= in the challenge
      assert.doesNotMatch(other.headers.get("www-authenticate")!, /scope=/);
      await other.body?.cancel();
    });
    await t.step("an empty --audience accepts the resource URI only", async () => {
      const strict = app({ publicOrigin: ORIGIN, audience: "" });
      const legacy = await post(strict, await iss.sign({ aud: "" }));
      assert.equal(legacy.status, 401);
      await legacy.body?.cancel();
      const res = await post(strict, await iss.sign({ aud: RESOURCE }));
      assert.equal(res.status, 200);
      await res.body?.cancel();
    });
  } finally {
    pool.close();
    await iss.close();
  }
});

Deno.test("settings' defaults take only tokens for the resource URI; ID tokens never pass", async (t) => {
  const iss = await issuerServer();
  const pool = createExecutePool(DEFAULT_LIMITS);
  /** The app as serve.ts builds it from these command-line arguments. */
  const app = (args: string[]) => {
    const { values } = SETTINGS.resolve({
      args: [...args, "--public-origin", ORIGIN],
      env: () => undefined,
    });
    return createApp({
      registry: createDemoRegistry(),
      authorizer: allowAll(),
      limits: DEFAULT_LIMITS,
      pool,
      logger: createLogger({ write: () => {} }),
      verifier: createBearerVerifier({ issuer: iss.issuer, audience: values.audience }),
      publicOrigin: values.public_origin,
      scopes: values.scopes,
    }).handler;
  };
  const post = async (handler: ReturnType<typeof app>, token: string) => {
    const res = await handler(
      new Request(RESOURCE, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${token}`,
        },
        body: LIST,
      }),
      localInfo(),
    );
    return {
      status: res.status,
      challenge: res.headers.get("www-authenticate"),
      body: await res.json(),
    };
  };
  const metadata = `resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource"`;
  /** An ID token as mock-oidc issues one to the client `mcp`: aud = azp = the client, a nonce. */
  const idToken = (extra: Record<string, unknown> = {}) =>
    iss.sign({ aud: "mcp", azp: "mcp", nonce: "n-1", tid: "default", ...extra }, "JWT");
  try {
    await t.step("the --audience default is empty", () => {
      assert.equal(SETTINGS.resolve({ args: [], env: () => undefined }).values.audience, "");
    });
    const defaults = app([]);
    await t.step("default: an ID token of the client mcp is 401 invalid_token", async () => {
      const res = await post(defaults, await idToken());
      assert.equal(res.status, 401);
      assert.equal(res.challenge, `Bearer ${metadata}, scope="mcp", error="invalid_token"`);
      assert.deepEqual(res.body, {
        error: "invalid_token",
        error_description: "The access token is invalid or expired",
      });
    });
    await t.step("default: an access token for aud mcp is 401 invalid_token", async () => {
      const res = await post(defaults, await iss.sign({ aud: "mcp", scope: "mcp" }, "JWT"));
      assert.equal(res.status, 401);
      assert.equal(res.challenge, `Bearer ${metadata}, scope="mcp", error="invalid_token"`);
    });
    await t.step("default: an access token for the resource URI is served", async () => {
      for (const typ of [undefined, "JWT", "at+jwt"]) {
        const res = await post(defaults, await iss.sign({ aud: RESOURCE, scope: "mcp" }, typ));
        assert.equal(res.status, 200, `typ ${typ}`);
        assert.equal(res.body.result.tools.length, 3);
      }
    });
    await t.step("default: an ID token naming the resource URI is 401 too", async () => {
      for (const claims of [{ nonce: "n" }, { at_hash: "h" }, { c_hash: "h" }]) {
        const res = await post(
          defaults,
          await iss.sign({ aud: RESOURCE, scope: "mcp", ...claims }),
        );
        assert.equal(res.status, 401, JSON.stringify(claims));
        assert.equal(res.body.error, "invalid_token");
      }
    });
    const optIn = app(["--audience", "mcp", "--scopes", ""]);
    await t.step("--audience mcp --scopes '': an access token for aud mcp is served", async () => {
      const res = await post(optIn, await iss.sign({ aud: "mcp" }, "JWT"));
      assert.equal(res.status, 200);
      assert.equal(res.body.result.tools.length, 3);
    });
    const idTokens: Array<[string, () => Promise<string>]> = [
      ["with a nonce", () => idToken()],
      ["with at_hash", () => idToken({ nonce: undefined, at_hash: "77QmUPtjPfzWtF2AnpK9RQ" })],
      ["with c_hash", () => idToken({ nonce: undefined, c_hash: "LDktKdoQak3Pk0cnXxCltA" })],
      ["typed by Keycloak's typ claim ID", () => idToken({ nonce: undefined, typ: "ID" })],
      ["typed id_token+jwt", () => iss.sign({ aud: "mcp" }, "id_token+jwt")],
      ["typed logout+jwt", () => iss.sign({ aud: "mcp" }, "logout+jwt")],
    ];
    for (const [what, make] of idTokens) {
      await t.step(`--audience mcp --scopes '': an ID token ${what} is 401`, async () => {
        const res = await post(optIn, await make());
        assert.equal(res.status, 401);
        // no scopes configured: no scope= in the challenge
        assert.equal(res.challenge, `Bearer ${metadata}, error="invalid_token"`);
        assert.equal(res.body.error, "invalid_token");
      });
    }
  } finally {
    pool.close();
    await iss.close();
  }
});
