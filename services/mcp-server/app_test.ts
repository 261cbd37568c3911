import assert from "node:assert/strict";
import { localInfo } from "@svc/shared/http";
import { createLogger } from "@svc/shared/log";
import { createMetrics } from "@svc/shared/metrics";
import { contractPath, documentedRoutes } from "@svc/testing/route-docs";
import { allowAll } from "./auth/authorizer.ts";
import { stepUpOf } from "./auth/step_up.ts";
import { type BearerVerifier, InvalidToken } from "./auth/bearer.ts";
import { createDemoRegistry } from "./demo/host.ts";
import { createExecutePool } from "./execute/pool.ts";
import { DEFAULT_LIMITS } from "./limits.ts";
import { type AppDeps, createApp } from "./app.ts";

/** A verifier that takes the token `good` (subject alice) and nothing else, without an issuer. */
const verifier: BearerVerifier = {
  issuer: "https://issuer.example",
  verify(token) {
    if (token !== "good") return Promise.reject(new InvalidToken("not good"));
    return Promise.resolve({
      token,
      clientId: "c",
      scopes: ["mcp"],
      extra: { subject: "alice" },
    });
  },
  prepare: () => Promise.resolve(),
};

function app(options: Partial<AppDeps> = {}) {
  return createApp({
    registry: createDemoRegistry(),
    authorizer: allowAll(),
    limits: DEFAULT_LIMITS,
    pool: createExecutePool(DEFAULT_LIMITS),
    logger: createLogger({ write: () => {} }),
    verifier,
    scopes: ["mcp"],
    ...options,
  });
}

Deno.test("the route table serves exactly the routes docs/mcp-server.md documents", async () => {
  const contract = await Deno.readTextFile(new URL("../../docs/mcp-server.md", import.meta.url));
  const documented = documentedRoutes(contract).map((r) => `${r.method} ${r.path}`).sort();
  const served = app({ metrics: createMetrics({ service: "mcp-server" }) }).routes.flatMap(
    (route) => {
      const methods = typeof route.method === "string" ? [route.method] : [...route.method];
      // a GET row answers HEAD too
      if (methods.includes("GET") && !methods.includes("HEAD")) methods.push("HEAD");
      return methods.map((method) => `${method} ${contractPath(String(route.pattern))}`);
    },
  ).sort();
  assert.ok(documented.length > 0, "the contract has a method x path table");
  assert.deepEqual(served, documented);
});

const exchange = (headers: Record<string, string>, body = "{}") =>
  new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body,
  });

Deno.test("POST /mcp refusals keep their bodies and statuses", async (t) => {
  const { handler } = app();
  await t.step("another Origin: 403 JSON-RPC error before the token is read", async () => {
    const res = await handler(
      exchange({ origin: "https://evil.example", authorization: "Bearer good" }),
      localInfo(),
    );
    assert.equal(res.status, 403);
    assert.deepEqual(await res.json(), {
      jsonrpc: "2.0",
      error: { code: -32000, message: "Forbidden: Origin not allowed" },
      id: null,
    });
  });
  await t.step("a body that is not JSON: 400 JSON-RPC parse error", async () => {
    const res = await handler(exchange({ authorization: "Bearer good" }, "{"), localInfo());
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), {
      jsonrpc: "2.0",
      error: { code: -32700, message: "Parse error: malformed JSON" },
      id: null,
    });
  });
  await t.step("an unreachable issuer: 503 JSON-RPC error", async () => {
    const down = app({
      verifier: { ...verifier, verify: () => Promise.reject(new TypeError("connection refused")) },
    });
    const res = await down.handler(exchange({ authorization: "Bearer any" }), localInfo());
    assert.equal(res.status, 503);
    assert.deepEqual(await res.json(), {
      jsonrpc: "2.0",
      error: { code: -32603, message: "Authorization server unavailable" },
      id: null,
    });
  });
  await t.step("a bad token: 401 invalid_token with the challenge", async () => {
    const res = await handler(exchange({ authorization: "Bearer bad" }), localInfo());
    assert.equal(res.status, 401);
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.equal((await res.json()).error, "invalid_token");
  });
  await t.step("GET /mcp: 405 problem with Allow: POST", async () => {
    const res = await handler(new Request("http://127.0.0.1/mcp"), localInfo());
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("allow"), "POST");
    assert.equal(res.headers.get("content-type"), "application/problem+json");
    await res.body?.cancel();
  });
  await t.step("an unknown path: 404 problem naming it", async () => {
    const res = await handler(new Request("http://127.0.0.1/x"), localInfo());
    assert.equal(res.status, 404);
    assert.deepEqual(await res.json(), {
      type: "about:blank",
      title: "Not Found",
      status: 404,
      detail: "Cannot find /x: no route for this path",
      instance: "/x",
    });
  });
});

Deno.test("a valid token reaches the MCP exchange, loaded on first use or by prepare", async () => {
  const served = app();
  await served.prepare();
  const res = await served.handler(
    exchange(
      { authorization: "Bearer good" },
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    ),
    localInfo(),
  );
  assert.equal(res.status, 200);
  const names = (await res.json()).result.tools.map((tool: { name: string }) => tool.name);
  assert.deepEqual(names, ["search_api", "describe_api", "execute"]);
});

Deno.test("step-up: a program naming a guarded capability needs its scopes, else 403", async (t) => {
  const scoped: BearerVerifier = {
    ...verifier,
    verify(token) {
      const scopes = { base: ["mcp"], writer: ["mcp", "records:write"] }[token];
      if (!scopes) return Promise.reject(new InvalidToken("unknown"));
      return Promise.resolve({ token, clientId: "c", scopes, extra: { subject: "alice" } });
    },
  };
  const stepUp = stepUpOf([{ capabilities: ["records.put"], scopes: ["records:write"] }]);
  const served = app({ verifier: scoped, stepUp });
  const call = (token: string, source: string, id = 1) =>
    served.handler(
      exchange(
        { authorization: `Bearer ${token}` },
        JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "execute", arguments: { source } },
        }),
      ),
      localInfo(),
    );
  const put = "def main():\n    return records.put(key='k', value='v')['record']['key']\n";
  const get = "def main():\n    return records.get(key='k')['record']\n";

  await t.step("the metadata lists the step-up scopes besides --scopes", async () => {
    const res = await served.handler(
      new Request("http://127.0.0.1/.well-known/oauth-protected-resource"),
      localInfo(),
    );
    assert.deepEqual((await res.json()).scopes_supported, ["mcp", "records:write"]);
  });
  await t.step("the base scope: 403 insufficient_scope naming what the program needs", async () => {
    const res = await call("base", put);
    assert.equal(res.status, 403);
    assert.equal(
      res.headers.get("www-authenticate"),
      'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource", ' +
        'scope="mcp records:write", error="insufficient_scope"',
    );
    assert.deepEqual(await res.json(), {
      error: "insufficient_scope",
      error_description: "The access token lacks the required scope: mcp records:write",
    });
  });
  await t.step("a program naming only unguarded capabilities runs on the base scope", async () => {
    const res = await call("base", get);
    assert.equal(res.status, 200);
    assert.deepEqual((await res.json()).result.structuredContent, { result: null });
  });
  await t.step("a batch with one guarded program is refused whole", async () => {
    const body = [get, put].map((source, i) => ({
      jsonrpc: "2.0",
      id: i + 1,
      method: "tools/call",
      params: { name: "execute", arguments: { source } },
    }));
    const res = await served.handler(
      exchange({ authorization: "Bearer base" }, JSON.stringify(body)),
      localInfo(),
    );
    assert.equal(res.status, 403);
    await res.body?.cancel();
  });
  await t.step("the scope: the program runs", async () => {
    const res = await call("writer", put);
    assert.equal(res.status, 200);
    assert.deepEqual((await res.json()).result.structuredContent, { result: "k" });
  });
  await t.step("over the source bound: no step-up, resource limit exceeded", async () => {
    const big = put + "#".repeat(DEFAULT_LIMITS.maxSourceBytes - put.length + 1);
    const res = await call("base", big);
    assert.equal(res.status, 200);
    assert.deepEqual((await res.json()).result.content, [
      { type: "text", text: "resource limit exceeded" },
    ]);
    const atBound = put + "#".repeat(DEFAULT_LIMITS.maxSourceBytes - put.length);
    assert.equal((await call("base", atBound)).status, 403);
  });
});
