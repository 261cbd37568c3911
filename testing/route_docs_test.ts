import assert from "node:assert/strict";
import { contractPath, documentedRoutes } from "./route_docs.ts";

const listed = (md: string) => documentedRoutes(md).map((r) => `${r.method} ${r.path}`);

Deno.test("documentedRoutes reads method x path tables in either column order", () => {
  const md = [
    "# contract",
    "",
    "| method | path             | success |",
    "| ------ | ---------------- | ------- |",
    "| GET    | `/v1/todos`      | 200     |",
    "| POST   | `/v1/todos`      | 201     |",
    "",
    "text between tables",
    "",
    "| path           | methods   | answer |",
    "| -------------- | --------- | ------ |",
    "| `/healthz`     | GET, HEAD | 200    |",
    "| any other path | GET, HEAD | object |",
  ].join("\n");
  assert.deepEqual(listed(md), [
    "GET /v1/todos",
    "POST /v1/todos",
    "GET /healthz",
    "HEAD /healthz",
  ]);
});

Deno.test("documentedRoutes skips tables without a method and a path column", () => {
  const md = [
    "| setting | default |",
    "| ------- | ------- |",
    "| GET     | `/x`    |",
  ].join("\n");
  assert.deepEqual(listed(md), []);
});

Deno.test("documentedRoutes expands several paths per cell, drops duplicates, keeps \\| in cells", () => {
  const md = [
    "| Method    | Path                                  | notes      |",
    "| --------- | ------------------------------------- | ---------- |",
    "| GET, POST | `/{issuer}/debugger`, `/{issuer}/cb`  | a \\| b     |",
    "| GET       | `/{issuer}/debugger`                  | again      |",
    "| get       | `not-a-path`                          | no slash   |",
  ].join("\n");
  assert.deepEqual(listed(md), [
    "GET /{issuer}/debugger",
    "GET /{issuer}/cb",
    "POST /{issuer}/debugger",
    "POST /{issuer}/cb",
  ]);
});

Deno.test("contractPath turns URLPattern groups into {name}", () => {
  assert.equal(contractPath("/v1/todos/:id"), "/v1/todos/{id}");
  assert.equal(contractPath("/:issuer([^/]+)/jwks"), "/{issuer}/jwks");
  assert.equal(contractPath("/register/:client_id?"), "/register/{client_id}");
  assert.equal(contractPath("/static/*"), "/static/*");
});
