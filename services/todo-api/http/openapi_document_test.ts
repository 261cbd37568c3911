import assert from "node:assert/strict";
import { type Json, responseSchema, schemaViolations } from "@svc/testing/schema-check";
import { backendSuite, call } from "../_test_support.ts";
import { SCHEMAS, STORABLE_TEXT_PATTERN } from "./schemas.ts";

Deno.test("each schema's $schema example names that schema", () => {
  let seen = 0;
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    const property = (schema.properties as Json | undefined)?.$schema;
    if (!property) continue;
    seen++;
    assert.equal(property.example, `https://example.com/schemas/${name}.json`, name);
  }
  assert.ok(seen >= 8, "Todo, inputs, list bodies, keys, ErrorModel");
  assert.equal((SCHEMAS.ErrorDetail.properties as Json).$schema, undefined, "nested: none");
});

Deno.test("ErrorModel.instance is a uri, and text fields carry the storable-text pattern", () => {
  const error = SCHEMAS.ErrorModel.properties as Json;
  assert.equal(error.instance.format, "uri");
  for (
    const [name, field] of [["Todo", "title"], ["CreateTodoInputBody", "title"], [
      "CreateKeyInputBody",
      "subject",
    ]]
  ) {
    assert.equal((SCHEMAS[name].properties as Json)[field].pattern, STORABLE_TEXT_PATTERN, name);
  }
});

backendSuite(import.meta.url, "the OpenAPI document describes /v1/keys as it answers", {
  "every key route's real answers match their documented schemas": async (env) => {
    const app = env.app();
    const doc = await (await app(call("GET", "/openapi.json"))).json();
    const admin = await env.key("root", ["admin"]);
    const user = await env.key("alice", ["user"]);
    const check = async (
      req: Request,
      path: string,
      expected: number,
    ): Promise<Json> => {
      const res = await app(req);
      assert.equal(res.status, expected, `${req.method} ${path}`);
      const documented = responseSchema(doc, path, req.method, res.status);
      assert.ok(documented, `${req.method} ${path} ${res.status} is documented`);
      assert.equal(res.headers.get("content-type"), documented.mediaType);
      const body = await res.json();
      assert.deepEqual(schemaViolations(body, documented.schema, doc), [], `${req.method} ${path}`);
      return body;
    };
    const made = await check(
      call("POST", "/v1/keys", {
        key: admin,
        body: { subject: "bob", roles: ["user"], expiresAt: "2099-01-01T00:00:00Z" },
      }),
      "/v1/keys",
      201,
    );
    await check(call("GET", "/v1/keys?limit=1", { key: admin }), "/v1/keys", 200);
    await check(call("GET", `/v1/keys/${made.id}`, { key: admin }), "/v1/keys/{id}", 200);
    await check(
      call("POST", `/v1/keys/${made.id}/revoke`, { key: admin }),
      "/v1/keys/{id}/revoke",
      200,
    );
    await check(call("GET", "/v1/keys", { key: user }), "/v1/keys", 403);
    await check(call("GET", "/v1/keys"), "/v1/keys", 401);
    await check(call("GET", "/v1/keys?cursor=x", { key: admin }), "/v1/keys", 400);
    await check(call("GET", "/v1/keys?limit=0", { key: admin }), "/v1/keys", 422);
    await check(call("GET", "/v1/keys/nope", { key: admin }), "/v1/keys/{id}", 404);
    await check(call("POST", "/v1/keys/nope/revoke", { key: admin }), "/v1/keys/{id}/revoke", 404);
    await check(call("POST", "/v1/keys", { key: admin, body: { subject: "" } }), "/v1/keys", 422);
    await check(call("POST", "/v1/keys", { key: admin, raw: "{" }), "/v1/keys", 400);
    await check(
      call("POST", "/v1/keys", {
        key: admin,
        raw: "{}",
        headers: { "content-type": "application/json; charset=utf-16" },
      }),
      "/v1/keys",
      415,
    );
  },
});
