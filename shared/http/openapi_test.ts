import assert from "node:assert/strict";
import { parse } from "yaml";
import { openapiHandler, openapiRoutes } from "./openapi.ts";
import { createRouter, localInfo } from "./mod.ts";

const doc = {
  openapi: "3.0.3",
  info: { title: "Demo <API>", version: "1.0.0" },
  paths: { "/x": { get: { responses: { "200": { description: "ok" } } } } },
};
const handler = openapiHandler(doc, { title: "Demo <API>" });

async function get(path: string) {
  const res = await handler(new Request("http://svc" + path));
  assert.ok(res, `no response for ${path}`);
  return res;
}

Deno.test("openapiHandler() serves the document as JSON and YAML", async () => {
  const json = await get("/openapi.json");
  assert.equal(json.headers.get("content-type"), "application/json");
  assert.deepEqual(await json.json(), doc);
  const yaml = await get("/openapi.yaml");
  assert.equal(yaml.headers.get("content-type"), "application/yaml");
  assert.deepEqual(parse(await yaml.text()), doc);
});

Deno.test("openapiHandler() serves a docs page that loads only local assets", async () => {
  const html = await (await get("/docs")).text();
  assert.match(html, /Demo &#60;API&#62;/);
  const srcs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  assert.ok(srcs.length >= 3);
  for (const src of srcs) {
    assert.ok(src.startsWith("/docs/"), `external asset ${src}`);
    const res = await get(src);
    assert.equal(res.status, 200, src);
    assert.ok((await res.arrayBuffer()).byteLength > 50, src);
  }
});

Deno.test("openapiHandler() answers /favicon.ico with a cacheable 204 (no 404 beside /docs)", async () => {
  for (const method of ["GET", "HEAD"]) {
    const res = await handler(new Request("http://svc/favicon.ico", { method }));
    assert.ok(res, method);
    assert.equal(res.status, 204, method);
    assert.equal(res.headers.get("cache-control"), "public, max-age=86400");
    assert.equal(await res.text(), "");
  }
  assert.equal(handler(new Request("http://svc/favicon.ico", { method: "POST" })), undefined);
  assert.equal(handler(new Request("http://svc/favicon.png")), undefined);
});

Deno.test("openapiHandler() leaves other paths and methods to the caller", () => {
  assert.equal(handler(new Request("http://svc/v1/todos")), undefined);
  assert.equal(handler(new Request("http://svc/docs/../../etc/passwd")), undefined);
  assert.equal(handler(new Request("http://svc/docs/package.json")), undefined);
  assert.equal(handler(new Request("http://svc/openapi.json", { method: "POST" })), undefined);
});

Deno.test("openapiRoutes() builds a document from an async builder once; a failed build is retried", async () => {
  let builds = 0;
  const router = createRouter(openapiRoutes(() => {
    builds++;
    return builds === 1 ? Promise.reject(new Error("builder did not load")) : Promise.resolve(doc);
  }, { title: "t" }));
  const get = (path: string) => router.handler(new Request("http://svc" + path), localInfo());
  await assert.rejects(async () => await get("/openapi.json"), /builder did not load/);
  assert.deepEqual(await (await get("/openapi.json")).json(), doc);
  assert.deepEqual(parse(await (await get("/openapi.yaml")).text()), doc);
  assert.equal(builds, 2);
});
