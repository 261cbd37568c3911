import assert from "node:assert/strict";
import SwaggerParser from "@apidevtools/swagger-parser";
import { createControlHandler } from "../control/control_plane.ts";
import { fakeDeps, jsonRequest } from "../control/_test_support.ts";
import { responseSchema, schemaViolations } from "@svc/shared/schema-check";
import { openapiDocument } from "./openapi_doc.ts";

Deno.test("the OpenAPI document is valid OpenAPI 3.0.3", async () => {
  const doc = openapiDocument("1.2.3");
  assert.equal(doc.openapi, "3.0.3");
  await SwaggerParser.validate(structuredClone(doc) as never);
});

Deno.test("the OpenAPI document lists every control, protocol and operational route", () => {
  const paths = Object.keys(openapiDocument("1").paths);
  for (
    const path of [
      "/_mock/clock",
      "/_mock/clock/advance",
      "/_mock/mint",
      "/_mock/scenarios",
      "/_mock/requests",
      "/_mock/requests/take",
      "/_mock/reset",
      "/{issuer}/authorize",
      "/{issuer}/token",
      "/{issuer}/userinfo",
      "/{issuer}/introspect",
      "/{issuer}/revoke",
      "/{issuer}/endsession",
      "/{issuer}/jwks",
      "/{issuer}/.well-known/openid-configuration",
      "/isalive",
      "/healthz",
      "/readyz",
      "/metrics",
      "/docs",
      "/openapi.json",
      "/openapi.yaml",
      "/static/{path}",
    ]
  ) assert.ok(paths.includes(path), path);
});

Deno.test("control-plane responses match their documented schemas", async () => {
  const doc = openapiDocument("1");
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
