import assert from "node:assert/strict";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { CapabilityRegistry } from "../capabilities/registry.ts";
import { connect, errorOf, sampleRegistry, valueOf } from "./_test_support.ts";

Deno.test("exactly three tools with strict single-string inputs and output schemas", async () => {
  const c = await connect({ registry: sampleRegistry() });
  try {
    const tools: Tool[] = (await c.client.listTools()).tools;
    assert.deepEqual(tools.map((tool: Tool) => tool.name).sort(), [
      "describe_api",
      "execute",
      "search_api",
    ]);
    const props: Record<string, string> = {
      "search_api": "query",
      "describe_api": "name",
      execute: "source",
    };
    for (const tool of tools) {
      const schema = tool.inputSchema as Record<string, unknown>;
      assert.deepEqual(Object.keys(schema.properties as object), [props[tool.name]]);
      assert.deepEqual(schema.required, [props[tool.name]]);
      assert.equal(schema.additionalProperties, false);
      assert.equal((tool.outputSchema as Record<string, unknown>).additionalProperties, false);
    }
  } finally {
    await c.close();
  }
});

Deno.test("the resolver runs for valid calls only, before any service work", async (t2) => {
  let resolved = 0;
  let handled = 0;
  const registry = sampleRegistry();
  registry.register({
    name: "count.calls",
    summary: "counts",
    handler: () => {
      handled++;
      return {};
    },
  });
  const c = await connect({
    registry,
    resolver: () => {
      resolved++;
      return { id: "alice" };
    },
  });
  try {
    await t2.step("malformed arguments never reach the resolver", async () => {
      for (
        const [tool, args] of [
          ["search_api", { query: "a", extra: true }],
          ["describe_api", {}],
          ["execute", { source: 1 }],
          ["execute", { source: "def main():\n  return count.calls()\n", more: 1 }],
        ] as const
      ) {
        const r = await c.call(tool, args);
        assert.equal(r.isError, true);
      }
      assert.equal(resolved, 0);
      assert.equal(handled, 0);
    });
    await t2.step("valid calls resolve once each", async () => {
      valueOf(await c.call("search_api", { query: "records" }));
      valueOf(await c.call("describe_api", { name: "records.list" }));
      assert.equal(resolved, 2);
    });
  } finally {
    await c.close();
  }
});

Deno.test("unauthenticated: resolver failure or empty subject, with no resolver detail", async () => {
  const resolvers = [
    () => {
      throw new Error("secret resolver detail");
    },
    () => Promise.reject(new Error("secret")),
    () => ({ id: "" }),
    () => ({}) as { id: string },
    () => undefined as unknown as { id: string },
  ];
  for (const resolver of resolvers) {
    let touched = false;
    const registry = new CapabilityRegistry();
    registry.register({
      name: "x.y",
      summary: "x",
      handler: () => {
        touched = true;
        return {};
      },
    });
    const c = await connect({ registry, resolver });
    try {
      for (
        const [tool, args] of [
          ["search_api", { query: "x" }],
          ["describe_api", { name: "x.y" }],
          ["execute", { source: "def main():\n  return x.y()\n" }],
        ] as const
      ) {
        assert.equal(errorOf(await c.call(tool, args)), "unauthenticated");
      }
      assert.equal(touched, false);
    } finally {
      await c.close();
    }
  }
});

Deno.test("internal failure hides unknown service errors", async () => {
  class Broken extends CapabilityRegistry {
    override enabled(): never {
      throw new Error("database password=hunter2 leaked");
    }
  }
  const registry = new Broken();
  registry.register({ name: "x.y", summary: "x", handler: () => ({}) });
  const c = await connect({ registry });
  try {
    assert.equal(errorOf(await c.call("search_api", { query: "x" })), "internal failure");
  } finally {
    await c.close();
  }
});

Deno.test("observe reports each valid call with a bounded outcome label", async () => {
  const seen: Array<[string, string]> = [];
  const c = await connect({
    registry: sampleRegistry(),
    observe: (tool, outcome, seconds) => {
      assert.ok(seconds >= 0);
      seen.push([tool, outcome]);
    },
  });
  try {
    valueOf(await c.call("search_api", { query: "records" }));
    errorOf(await c.call("describe_api", { name: "nope.x" }));
    errorOf(await c.call("execute", { source: "def main():\n  return records.lookup(key=1)\n" }));
    await c.call("search_api", { query: 1 }); // invalid input: not observed
    assert.deepEqual(seen, [
      ["search_api", "ok"],
      ["describe_api", "capability not found"],
      ["execute", "invalid capability arguments"],
    ]);
  } finally {
    await c.close();
  }
});
