import assert from "node:assert/strict";
import SwaggerParser from "@apidevtools/swagger-parser";
import { parse as parseYaml } from "yaml";
import { responseSchema, schemaViolations } from "@svc/testing/schema-check";
import { startMock } from "./_test_support.ts";

Deno.test("the served OpenAPI document is valid and matches what the server answers", async () => {
  const mock = await startMock();
  try {
    const doc = await (await fetch(`${mock.url}/openapi.json`)).json();
    const yaml = parseYaml(await (await fetch(`${mock.url}/openapi.yaml`)).text());
    assert.deepEqual(yaml, doc);
    await SwaggerParser.validate(structuredClone(doc));

    const minted = await (await fetch(`${mock.url}/_mock/mint`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ issuer: "doc" }),
    })).json();
    const form = (body: string) => ({
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
    });
    const calls: [string, string, RequestInit?][] = [
      ["/{issuer}/.well-known/openid-configuration", "/doc/.well-known/openid-configuration"],
      ["/{issuer}/jwks", "/doc/jwks"],
      [
        "/{issuer}/token",
        "/doc/token",
        form("grant_type=client_credentials&client_id=c&client_secret=s"),
      ],
      ["/{issuer}/token", "/doc/token", form("grant_type=nonsense&client_id=c")],
      ["/{issuer}/introspect", "/doc/introspect", form(`token=${minted.token}&client_id=c`)],
      ["/{issuer}/userinfo", "/doc/userinfo", {
        headers: { authorization: `Bearer ${minted.token}` },
      }],
      ["/isalive", "/isalive"],
      ["/healthz", "/healthz"],
      ["/readyz", "/readyz"],
      ["/_mock/clock", "/_mock/clock"],
      ["/_mock/clock/advance", "/_mock/clock/advance", {
        method: "POST",
        body: '{"duration":"x"}',
      }],
      ["/_mock/mint", "/_mock/mint", { method: "POST", body: '{"issuer":"doc","x":1}' }],
      ["/_mock/scenarios", "/_mock/scenarios"],
      ["/_mock/requests", "/_mock/requests"],
      ["/_mock/requests/take", "/_mock/requests/take", {
        method: "POST",
        body: '{"issuer":"doc"}',
      }],
      ["/_mock/requests/take", "/_mock/requests/take", { method: "POST", body: '{"timeoutMs":1}' }],
      ["/_mock/reset", "/_mock/reset", { method: "POST" }],
    ];
    for (const [template, path, init] of calls) {
      const json: Record<string, string> = init?.body === undefined
        ? {}
        : { "content-type": "application/json" };
      const headers = new Headers(init?.headers);
      for (const [name, value] of Object.entries(json)) {
        if (!headers.has(name)) headers.set(name, value);
      }
      const res = await fetch(`${mock.url}${path}`, { ...init, headers });
      const method = init?.method ?? "GET";
      const documented = responseSchema(doc, template, method, res.status);
      assert.ok(documented, `${method} ${path} answered undocumented ${res.status}`);
      const type = res.headers.get("content-type") ?? "";
      assert.ok(type.startsWith(documented.mediaType), `${method} ${path}: ${type}`);
      const violations = schemaViolations(await res.json(), documented.schema, doc);
      assert.deepEqual(violations, [], `${method} ${path} ${res.status}`);
    }
  } finally {
    await mock.stop();
  }
});
