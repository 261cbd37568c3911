import assert from "node:assert/strict";
import SwaggerParser from "@apidevtools/swagger-parser";
import { createControlHandler, fakeDeps, jsonRequest } from "../control/_test_support.ts";
import { responseSchema, schemaViolations } from "@svc/testing/schema-check";
import { openapiDocument } from "./openapi_doc.ts";
import { createApp, createAppState } from "../app.ts";
import { harness } from "../protocol/_test_support.ts";
import { createMetrics } from "@svc/shared/metrics";
import { createLogger } from "@svc/shared/log";
import { localInfo, type Route } from "@svc/shared/http";

/** The document as the app serves it, and the route table it is derived from. */
function documented(version: string, metricsOnApi = true, staticAssetsPath = "/nonexistent") {
  const app = createApp({
    core: harness().core,
    state: createAppState(createMetrics({ service: "mock-oidc" })),
    logger: createLogger({ write: () => {} }),
    options: { metricsOnApi, staticAssetsPath },
  });
  return { routes: app.documentedRoutes, doc: openapiDocument(version, app.documentedRoutes) };
}

Deno.test("the OpenAPI document is valid OpenAPI 3.0.3", async () => {
  const { doc } = documented("1.2.3");
  assert.equal(doc.openapi, "3.0.3");
  await SwaggerParser.validate(structuredClone(doc) as never);
});

Deno.test("every route-table row is documented, but docs assets and the /_mock catch-all", () => {
  const { routes, doc } = documented("1");
  const pathname = (r: Route) => typeof r.pattern === "string" ? r.pattern : r.pattern.pathname;
  const undocumented = routes.filter((r) => !r.openapi).map(pathname);
  assert.deepEqual(undocumented, [
    "/docs/",
    "/docs/init.js",
    "/docs/swagger-ui.css",
    "/docs/swagger-ui-bundle.js",
    "/_mock",
    "/_mock/*",
  ]);
  const documentedPaths = new Set(
    routes.filter((r) => r.openapi).map((r) => pathname(r).replace(/:(\w+)\+?/g, "{$1}")),
  );
  assert.deepEqual(new Set(Object.keys(doc.paths)), documentedPaths);
  // The endpoint tables of docs/mock-oidc.md: 14 control paths, 15 issuer paths, 7 operational,
  // static files, the favicon upstream answers, the debugger's form and callback, and the
  // console's page and its changes feed.
  assert.equal(documentedPaths.size, 42);
});

Deno.test("/metrics is documented only where the API listener serves it", () => {
  assert.ok("/metrics" in documented("1", true).doc.paths);
  assert.ok(!("/metrics" in documented("1", false).doc.paths));
});

Deno.test("/static/{path} is documented only with a static root", () => {
  assert.ok("/static/{path}" in documented("1").doc.paths);
  assert.ok(!("/static/{path}" in documented("1", true, "").doc.paths));
});

Deno.test("with the control plane disabled the document has no /_mock path", async () => {
  const app = createApp({
    core: harness().core,
    state: createAppState(createMetrics({ service: "mock-oidc" })),
    logger: createLogger({ write: () => {} }),
    options: { controlEnabled: false },
  });
  const doc = await (await app.api(new Request("http://x/openapi.json"), localInfo())).json();
  const paths = Object.keys(doc.paths);
  assert.ok(paths.length > 10);
  assert.deepEqual(paths.filter((p) => p.startsWith("/_mock")), []);
  const favicon = await app.api(new Request("http://x/favicon.ico"), localInfo());
  assert.equal(favicon.status, 200);
  assert.equal(await favicon.text(), "");
});

Deno.test("the served document is the one derived from the table", async () => {
  const app = createApp({
    core: harness().core,
    state: createAppState(createMetrics({ service: "mock-oidc" })),
    logger: createLogger({ write: () => {} }),
    options: { version: "9.9.9" },
  });
  const res = await app.api(new Request("http://x/openapi.json"), localInfo());
  assert.deepEqual(
    await res.json(),
    JSON.parse(JSON.stringify(openapiDocument("9.9.9", app.documentedRoutes))),
  );
});

Deno.test("control-plane responses match their documented schemas", async () => {
  const { doc } = documented("1");
  const { deps } = fakeDeps();
  const handle = createControlHandler(deps);
  deps.requests.append({
    id: "1",
    receivedAt: new Date(0).toISOString(),
    issuer: "a",
    method: "POST",
    path: "/a/token",
    url: "http://x/a/token",
    query: {},
    headers: { host: ["x"] },
    bodyBase64: btoa("a=1"),
    body: "a=1",
  });
  const calls: [string, string, unknown?][] = [
    ["GET", "/_mock/clock"],
    ["PUT", "/_mock/clock", { frozen: true, instant: "2030-01-01T00:00:00Z" }],
    ["PUT", "/_mock/clock", { frozen: true }],
    ["POST", "/_mock/clock/advance", { duration: "5m" }],
    ["POST", "/_mock/clock/advance", "{"],
    ["POST", "/_mock/mint", { issuer: "a", audience: ["x"], claims: { k: 1 } }],
    ["POST", "/_mock/mint", { issuer: "_mock" }],
    ["POST", "/_mock/scenarios", { issuer: "a", requestMappings: [{ param: "p", match: "*" }] }],
    ["GET", "/_mock/scenarios"],
    ["DELETE", "/_mock/scenarios"],
    ["GET", "/_mock/requests"],
    ["GET", "/_mock/requests?endpoint=bogus"],
    ["POST", "/_mock/requests/take", { endpoint: "token" }],
    ["POST", "/_mock/requests/take", { timeoutMs: 1 }],
    ["DELETE", "/_mock/requests"],
    ["GET", "/_mock/clients"],
    ["DELETE", "/_mock/clients"],
    ["POST", "/_mock/reset"],
  ];
  for (const [method, target, body] of calls) {
    const res = await handle(jsonRequest(method, target, body));
    const path = target.split("?")[0];
    const documented = responseSchema(doc, path, method, res.status);
    assert.ok(documented, `${method} ${target} answered undocumented ${res.status}`);
    assert.equal(res.headers.get("content-type"), documented.mediaType, `${method} ${target}`);
    const violations = schemaViolations(await res.json(), documented.schema, doc);
    assert.deepEqual(violations, [], `${method} ${target} ${res.status}`);
  }
});

Deno.test("the DPoP header, DPoP-Nonce, the new discovery fields and the DPoP control route are described", () => {
  // deno-lint-ignore no-explicit-any
  const { doc } = documented("1") as { doc: any };
  const dpopParam = { $ref: "#/components/parameters/DPoP" };
  const withProof = [
    ["/{issuer}/token", "post"],
    ["/{issuer}/userinfo", "get"],
    ["/{issuer}/userinfo", "post"],
    ["/{issuer}/introspect", "post"],
    ["/{issuer}/par", "post"],
  ];
  for (const [path, method] of withProof) {
    const op = doc.paths[path][method];
    assert.ok(op.parameters.some((p: unknown) => JSON.stringify(p) === JSON.stringify(dpopParam)));
  }
  assert.equal(doc.paths["/{issuer}/revoke"].post.parameters.length, 1);
  assert.equal(doc.components.parameters.DPoP.in, "header");
  assert.ok(doc.paths["/{issuer}/token"].post.responses["400"].headers["DPoP-Nonce"]);
  assert.ok(doc.paths["/{issuer}/token"].post.responses["200"].headers["DPoP-Nonce"]);
  assert.ok(doc.paths["/{issuer}/userinfo"].get.responses["401"].headers["WWW-Authenticate"]);
  assert.equal(
    doc.paths["/{issuer}/par"].post.responses["201"].content["application/json"].schema.$ref,
    "#/components/schemas/PushedAuthorizationResponse",
  );
  const discovery = Object.keys(doc.components.schemas.Discovery.properties);
  for (
    const field of [
      "dpop_signing_alg_values_supported",
      "pushed_authorization_request_endpoint",
      "require_pushed_authorization_requests",
      "token_endpoint_auth_signing_alg_values_supported",
      "request_object_signing_alg_values_supported",
    ]
  ) assert.ok(discovery.includes(field), field);
  assert.ok(doc.components.schemas.MintRequest.properties.dpopJwk);
  assert.deepEqual(doc.components.schemas.MintResponse.properties.tokenType.enum, [
    "Bearer",
    "DPoP",
  ]);
  assert.ok(doc.components.schemas.CapturedRequest.properties.dpop);
  assert.deepEqual(Object.keys(doc.paths["/_mock/dpop/nonce-challenge"]).sort(), [
    "delete",
    "get",
    "post",
  ]);
});
