import assert from "node:assert/strict";
import { routeTemplateOf } from "./route_template.ts";

Deno.test("routeTemplateOf hides issuer ids and unknown paths", () => {
  assert.equal(routeTemplateOf("/default/token"), "/{issuer}/token");
  assert.equal(
    routeTemplateOf("/x/.well-known/openid-configuration"),
    "/{issuer}/.well-known/openid-configuration",
  );
  assert.equal(routeTemplateOf("/_mock/mint"), "/_mock/mint");
  assert.equal(routeTemplateOf("/_mock/whatever"), "/_mock/*");
  assert.equal(routeTemplateOf("/healthz"), "/healthz");
  assert.equal(routeTemplateOf("/static/a/b.css"), "/static/*");
  assert.equal(routeTemplateOf("/docs/swagger-ui.css"), "/docs/*");
  assert.equal(routeTemplateOf("/a/b/c"), "unmatched");
});
