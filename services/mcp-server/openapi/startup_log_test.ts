import assert from "node:assert/strict";
import { createLogger } from "@svc/shared/log";
import { CapabilityRegistry } from "../capabilities/registry.ts";
import { type ApiReport, registerDocument } from "./host.ts";
import { logApiReports } from "./startup_log.ts";

function logged(apis: ApiReport[]): Array<Record<string, unknown>> {
  const lines: string[] = [];
  logApiReports(createLogger({ level: "debug", write: (l) => lines.push(l) }), apis);
  return lines.map((l) => JSON.parse(l));
}

const html = (name: string) => ({
  name,
  reason: "response 200 is not JSON (text/html)",
  kind: "unexpressible" as const,
});

Deno.test("operations the notation cannot express: one info line naming them all, no warn", () => {
  const lines = logged([
    { name: "todos", enabled: ["todos.list_todos", "todos.create_todo"], disabled: [] },
    { name: "oidc", enabled: ["oidc.mint_token"], disabled: [html("oidc.docs"), html("oidc.ui")] },
  ]);
  assert.deepEqual(lines.map((l) => [l.level, l.msg]), [
    ["info", "OpenAPI API registered"],
    ["info", "OpenAPI API registered"],
    ["info", "OpenAPI operations disabled"],
  ]);
  assert.deepEqual([lines[0].api, lines[0].enabled, lines[0].disabled], ["todos", 2, 0]);
  assert.deepEqual([lines[1].api, lines[1].enabled, lines[1].disabled], ["oidc", 1, 2]);
  assert.equal(lines[2].count, 2);
  assert.deepEqual(lines[2].capabilities, ["oidc.docs", "oidc.ui"]);
  assert.match(String(lines[2].reason), /--list-capabilities/);
});

Deno.test("nothing disabled: no summary line", () => {
  const lines = logged([{ name: "todos", enabled: ["todos.list_todos"], disabled: [] }]);
  assert.deepEqual(lines.map((l) => l.msg), ["OpenAPI API registered"]);
});

Deno.test("an operation the registry refused is a warn of its own, with its reason", () => {
  const lines = logged([{
    name: "gh",
    enabled: ["gh.get_repo"],
    disabled: [
      html("gh.page"),
      { name: "gh.get_repo_2", reason: "name already registered", kind: "rejected" },
    ],
  }]);
  assert.deepEqual(lines.map((l) => [l.level, l.msg]), [
    ["info", "OpenAPI API registered"],
    ["warn", "OpenAPI operation disabled"],
    ["info", "OpenAPI operations disabled"],
  ]);
  assert.equal(lines[1].capability, "gh.get_repo_2");
  assert.equal(lines[1].reason, "name already registered");
  assert.deepEqual(lines[2].capabilities, ["gh.page"]);
});

Deno.test("an API with no usable operation is a warn", () => {
  const lines = logged([{ name: "web", enabled: [], disabled: [html("web.home")] }]);
  assert.deepEqual(lines.map((l) => [l.level, l.msg]), [
    ["info", "OpenAPI API registered"],
    ["warn", "OpenAPI API has no usable operation"],
    ["info", "OpenAPI operations disabled"],
  ]);
  assert.deepEqual([lines[1].api, lines[1].disabled], ["web", 1]);
});

Deno.test("registerDocument tells the two kinds apart: the notation's limits and refusals", () => {
  const registry = new CapabilityRegistry();
  // Taken before the document registers: its operation of the same name is refused.
  registry.register({ name: "api.get_a", summary: "taken", handler: () => Promise.resolve(1) });
  const json = { "application/json": { schema: { type: "object" } } };
  const doc = {
    openapi: "3.0.3",
    info: { title: "t", version: "1" },
    servers: [{ url: "http://127.0.0.1:9/" }],
    paths: {
      "/a": { get: { operationId: "getA", responses: { 200: { content: json } } } },
      "/b": { get: { operationId: "getB", responses: { 200: { content: json } } } },
      "/page": {
        get: {
          operationId: "page",
          responses: { 200: { content: { "text/html": { schema: { type: "string" } } } } },
        },
      },
    },
  };
  const report = registerDocument(
    registry,
    { name: "api", source: "mem" },
    { doc, location: new URL("file:///mem.json") },
    { env: () => undefined },
  );
  assert.deepEqual(report.enabled, ["api.get_b"]);
  assert.deepEqual(report.disabled.map((d) => [d.name, d.kind]), [
    ["api.get_a", "rejected"],
    ["api.page", "unexpressible"],
  ]);
  const lines = logged([report]);
  assert.deepEqual(lines.map((l) => [l.level, l.msg, l.capability ?? l.capabilities]), [
    ["info", "OpenAPI API registered", undefined],
    ["warn", "OpenAPI operation disabled", "api.get_a"],
    ["info", "OpenAPI operations disabled", ["api.page"]],
  ]);
});
