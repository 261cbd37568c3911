import assert from "node:assert/strict";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { CapabilityRegistry } from "../capabilities/registry.ts";
import { createDemoRegistry } from "../demo/host.ts";
import { IDENTITY } from "../identity.ts";
import { DEFAULT_LIMITS, resolveLimits } from "../limits.ts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { allowAll } from "../auth/authorizer.ts";
import { createExecutePool } from "../execute/pool.ts";
import { connect } from "./_test_support.ts";
import { createServerFactory } from "./server.ts";
import { executeAnnotations, INSTRUCTIONS } from "./descriptions.ts";

const tool = (tools: Tool[], name: string) => tools.find((t) => t.name === name)!;

Deno.test("initialize names the build's version and gives the recovery rules", async () => {
  const c = await connect();
  try {
    assert.deepEqual(c.client.getServerVersion(), {
      name: "mcp-server",
      version: IDENTITY.build.version,
    });
    const instructions = c.client.getInstructions() ?? "";
    assert.equal(instructions, INSTRUCTIONS);
    for (
      const text of [
        "capability not found",
        "invalid capability arguments",
        "capability failed",
        "invalid program",
        "resource limit exceeded",
        "search_api",
        "describe_api",
      ]
    ) assert.ok(instructions.includes(text), text);
  } finally {
    await c.close();
  }
});

Deno.test("search_api and execute state the effective limits, from the settings", async () => {
  const limits = {
    maxQueryBytes: 111,
    maxSearchResults: 7,
    maxSearchResponseBytes: 999,
    maxSourceBytes: 4321,
    maxExecutionSteps: 12345,
    maxExecutionMs: 1500,
    maxNativeCalls: 3,
    maxValueDepth: 9,
    maxValueBytes: 7777,
    maxIntermediateBytes: 8888,
    maxAllocBytes: 99999,
  };
  const c = await connect({ limits });
  try {
    const { tools } = await c.client.listTools();
    const search = tool(tools, "search_api").description!;
    for (
      const part of [
        "a query of at most 111 bytes",
        "16 distinct words",
        "7 results",
        "999 bytes of results",
      ]
    ) assert.ok(search.includes(part), `${part} in ${search}`);
    const execute = tool(tools, "execute").description!;
    for (
      const part of [
        "source 4321 bytes",
        "12345 steps",
        "1500ms elapsed",
        "3 capability calls",
        "value depth 9",
        "7777 bytes per argument, result and returned value",
        "8888 bytes of capability results in all",
        "99999 bytes allocated",
      ]
    ) assert.ok(execute.includes(part), `${part} in ${execute}`);
    assert.ok(!execute.includes(String(DEFAULT_LIMITS.maxExecutionSteps)));
  } finally {
    await c.close();
  }
  // whole seconds read as such
  const defaults = await connect();
  try {
    const { tools } = await defaults.client.listTools();
    assert.ok(tool(tools, "execute").description!.includes("5s elapsed"));
  } finally {
    await defaults.close();
  }
  assert.equal(resolveLimits({}).maxExecutionMs, 5000);
});

Deno.test("execute is read-only only when every enabled capability is a read", () => {
  const read = (name: string, more = {}) => ({
    name,
    summary: name,
    readOnly: true,
    handler: () => ({}),
    ...more,
  });
  const registry = new CapabilityRegistry();
  // no capability at all: nothing can change
  assert.deepEqual(executeAnnotations(registry.enabled()), {
    readOnlyHint: true,
    openWorldHint: false,
  });
  registry.register(read("a.get"));
  registry.register(read("api.list", { openWorld: true }));
  assert.deepEqual(executeAnnotations(registry.enabled()), {
    readOnlyHint: true,
    openWorldHint: true,
  });
  registry.register({ name: "a.put", summary: "write", handler: () => ({}) });
  const writing = {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  };
  assert.deepEqual(executeAnnotations(registry.enabled()), writing);
  // a disabled writer does not count
  registry.setEnabled("a.put", false);
  assert.equal(executeAnnotations(registry.enabled()).readOnlyHint, true);
  // the demo host writes records, reaches nothing outside
  assert.deepEqual(executeAnnotations(createDemoRegistry().enabled()), {
    ...writing,
    openWorldHint: false,
  });
});

Deno.test("tools/list carries execute's annotations and follows a change of capabilities", async () => {
  const registry = new CapabilityRegistry();
  registry.register({ name: "a.get", summary: "read", readOnly: true, handler: () => ({}) });
  registry.register({ name: "a.put", summary: "write", handler: () => ({}) });
  registry.setEnabled("a.put", false);
  const pool = createExecutePool(resolveLimits());
  // one factory, as the HTTP transport has: a server per request
  const newServer = createServerFactory({
    registry,
    resolver: () => ({ id: "tester" }),
    authorizer: allowAll(),
    pool,
  });
  const list = async () => {
    const server = newServer();
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    await server.connect(serverEnd);
    const client = new Client({ name: "t", version: "1" });
    await client.connect(clientEnd);
    try {
      return (await client.listTools()).tools;
    } finally {
      await client.close();
      await server.close();
    }
  };
  try {
    let tools = await list();
    assert.deepEqual(tool(tools, "execute").annotations, {
      readOnlyHint: true,
      openWorldHint: false,
    });
    assert.deepEqual(tool(tools, "search_api").annotations, {
      readOnlyHint: true,
      openWorldHint: false,
    });
    registry.setEnabled("a.put", true);
    tools = await list();
    assert.equal(tool(tools, "execute").annotations?.readOnlyHint, false);
    assert.equal(tool(tools, "execute").annotations?.destructiveHint, true);
  } finally {
    pool.close();
  }
});
