import assert from "node:assert/strict";
import { createRouter, localInfo, type Route } from "@svc/shared/http";
import { createMetrics } from "@svc/shared/metrics";
import { contractPath, documentedRoutes } from "@svc/testing/route-docs";
import { fakeDeps } from "./control/_test_support.ts";
import { DEFAULT_CONFIG } from "./config/json_config.ts";
import { createCore } from "./provider_state.ts";
import { routeTable } from "./routes.ts";
import { splitIssuerPath } from "./protocol/issuer_path.ts";

const document = () => ({ openapi: "3.0.3" });
const protocol = () => createCore(DEFAULT_CONFIG).protocol;

function table(metrics?: ReturnType<typeof createMetrics>) {
  const router = createRouter(routeTable({ protocol: protocol(), metrics, document }));
  return {
    router,
    get: (path: string, method = "GET") =>
      router.match(new Request(`http://x${path}`, { method })).handler
        ? Promise.resolve(router.handler(new Request(`http://x${path}`, { method }), localInfo()))
        : undefined,
  };
}

Deno.test("operational routes: liveness, readiness, OpenAPI, upstream's favicon", async () => {
  const { get } = table();
  assert.deepEqual(await (await get("/isalive"))!.json(), { status: "ok" });
  assert.deepEqual(await (await get("/healthz"))!.json(), { status: "ok" });
  assert.deepEqual(await (await get("/readyz"))!.json(), { status: "ready", checks: {} });
  assert.equal((await (await get("/openapi.json"))!.json()).openapi, "3.0.3");
  assert.equal(await get("/metrics"), undefined);
  const favicon = (await get("/favicon.ico"))!;
  assert.equal(favicon.status, 200, "upstream's 200, not the kit's 204");
  assert.equal(await favicon.text(), "");
});

Deno.test("operational routes serve /metrics when it shares the API listener", async () => {
  const metrics = createMetrics({ service: "mock-oidc" });
  const { get } = table(metrics);
  const res = await get("/metrics");
  assert.equal(res?.status, 200);
  assert.match(await res!.text(), /http_requests_total/);
});

Deno.test("operational routes answer wrong methods with 405 and Allow: GET, HEAD", () => {
  const { router } = table(createMetrics({ service: "mock-oidc" }));
  for (const path of ["/isalive", "/healthz", "/readyz", "/metrics", "/openapi.json", "/docs"]) {
    const m = router.match(new Request(`http://x${path}`, { method: "DELETE" }));
    assert.equal(m.handler, undefined, path);
    assert.deepEqual(m.allow, ["GET", "HEAD"], path);
  }
});

Deno.test("/readyz turns 503 draining once the shutdown starts; liveness stays 200", async () => {
  const shutdown = new AbortController();
  const router = createRouter(
    routeTable({ protocol: protocol(), document, shutdownSignal: shutdown.signal }),
  );
  const get = (path: string) => router.handler(new Request(`http://x${path}`), localInfo());
  assert.equal((await get("/readyz")).status, 200);
  shutdown.abort();
  const res = await get("/readyz");
  assert.equal(res.status, 503);
  assert.deepEqual(await res.json(), { status: "not_ready", reason: "draining", checks: {} });
  assert.equal((await get("/healthz")).status, 200);
  assert.equal((await get("/isalive")).status, 200);
});

/** `METHOD path` of each route a row serves, in the contract's spelling. */
function served(route: Route): string[] {
  // A row of every method is a fallback (the `/_mock` catch-all): the contract gives its 404.
  if (route.method === "*") return [];
  const methods = typeof route.method === "string" ? [route.method] : [...route.method];
  const path = route.label ?? contractPath(String(route.pattern));
  // "GET rows also answer HEAD" (docs/mock-oidc.md): the tables list GET.
  return methods.filter((m) => m !== "HEAD" || !methods.includes("GET")).map((m) => `${m} ${path}`);
}

Deno.test("the route table and the route tables of docs/mock-oidc.md list the same routes", async () => {
  const contract = await Deno.readTextFile(new URL("../../docs/mock-oidc.md", import.meta.url));
  const documented = documentedRoutes(contract).map((r) => `${r.method} ${r.path}`);
  // Every row the table can have: control plane here, /metrics on the API listener, static files.
  const table = routeTable({
    protocol: protocol(),
    control: fakeDeps().deps,
    metrics: createMetrics({ service: "mock-oidc" }),
    staticRoot: "/nonexistent",
    document,
  });
  const rows = table.flatMap(served);
  assert.deepEqual([...new Set(rows)].sort(), [...new Set(documented)].sort());
  // (The Swagger UI's files are one row each under one label, `/docs/*`.)
  const patterns = table.flatMap((r) => [r.method].flat().map((m) => `${m} ${String(r.pattern)}`));
  assert.equal(new Set(patterns).size, patterns.length, "no method and pattern has two rows");
  // The check can fail: the tables document the issuer paths as the rows spell them.
  assert.ok(documented.includes("POST /{issuer}/token"));
  assert.ok(documented.includes("GET /{issuer}/register/{client}"));
  assert.ok(rows.includes("GET /_mock/ui") && rows.includes("GET /static/*"));
});

Deno.test("the capture log splits every issuer row's paths as the table does", () => {
  const router = createRouter(routeTable({ protocol: protocol(), document }));
  const patterns = routeTable({ protocol: protocol(), document }).map((r) => String(r.pattern))
    .filter((p) => p.includes(":issuer+"));
  assert.equal(new Set(patterns).size, 17);
  for (const pattern of patterns) {
    for (const issuer of ["a", "realms/x", "a/token", "a/register"]) {
      const path = pattern.replace(":issuer+", issuer).replace(":client", "c1");
      const match = router.match(new Request(`http://x${path}`));
      const split = splitIssuerPath(path);
      assert.equal(split?.issuer, match.params.issuer, path);
      const suffix = pattern.startsWith("/.well-known/")
        ? ".well-known/oauth-authorization-server"
        : pattern.slice("/:issuer+/".length).replace(":client", "*");
      assert.equal(split?.suffix, suffix, path);
    }
  }
});

Deno.test("multi-segment issuers: the endpoint suffix decides which row owns a path", () => {
  const router = createRouter(routeTable({ protocol: protocol(), document }));
  const owner = (path: string, method = "GET") => {
    const match = router.match(new Request(`http://x${path}`, { method }));
    return { label: match.route, params: match.params };
  };
  const cases: [string, string, string, Record<string, string>][] = [
    [
      "GET",
      "/realms/x/.well-known/openid-configuration",
      "/{issuer}/.well-known/openid-configuration",
      { issuer: "realms/x" },
    ],
    [
      "GET",
      "/tenant1/v2.0/.well-known/openid-configuration",
      "/{issuer}/.well-known/openid-configuration",
      { issuer: "tenant1/v2.0" },
    ],
    ["POST", "/a/b/c/token", "/{issuer}/token", { issuer: "a/b/c" }],
    // A segment named like an endpoint belongs to the issuer when another suffix follows.
    ["POST", "/a/token/token", "/{issuer}/token", { issuer: "a/token" }],
    [
      "GET",
      "/a/jwks/.well-known/openid-configuration",
      "/{issuer}/.well-known/openid-configuration",
      { issuer: "a/jwks" },
    ],
    // A fixed suffix wins over register/{client}: issuer a/register's token endpoint.
    ["POST", "/a/register/token", "/{issuer}/token", { issuer: "a/register" }],
    ["GET", "/a/register/debugger", "/{issuer}/debugger", { issuer: "a/register" }],
    ["GET", "/a/b/register/c1", "/{issuer}/register/{client}", { issuer: "a/b", client: "c1" }],
    ["GET", "/a/debugger/callback", "/{issuer}/debugger/callback", { issuer: "a" }],
    ["POST", "/a/device_authorization", "/{issuer}/device_authorization", { issuer: "a" }],
    ["GET", "/a/b/device", "/{issuer}/device", { issuer: "a/b" }],
    // RFC 8414's form takes the whole rest as the issuer, whatever it ends in.
    [
      "GET",
      "/.well-known/oauth-authorization-server/realms/jwks",
      "/.well-known/oauth-authorization-server/{issuer}",
      { issuer: "realms/jwks" },
    ],
  ];
  for (const [method, path, label, params] of cases) {
    assert.deepEqual(owner(path, method), { label, params }, path);
  }
  // No suffix, an empty segment, or nothing before the suffix: no row.
  for (const path of ["/realms/x", "/a//token", "//token", "/token", "/a/b/token/"]) {
    assert.equal(owner(path, "POST").label, "unmatched", path);
  }
});
