import assert from "node:assert/strict";
import { CapabilityRegistry } from "../capabilities/registry.ts";
import { t } from "../capabilities/schema.ts";
import { connect, errorOf, sampleRegistry, valueOf } from "./_test_support.ts";

Deno.test("search_api over the in-memory SDK client", async (t2) => {
  const c = await connect({ registry: sampleRegistry() });
  try {
    await t2.step("returns name, signature and summary, exact name first", async () => {
      const out = valueOf(await c.call("search_api", { query: "records.lookup" }));
      assert.deepEqual(out.results, [
        {
          name: "records.lookup",
          signature: "records.lookup(*, key: str)",
          summary: "Look up a record by key",
        },
      ]);
      const both = valueOf(await c.call("search_api", { query: "RECORDS.list" }));
      assert.deepEqual((both.results as Array<{ name: string }>).map((r) => r.name), [
        "records.list",
      ]);
      const one = valueOf(await c.call("search_api", { query: "records" }));
      assert.deepEqual(
        (one.results as Array<{ name: string }>).map((r) => r.name).sort(),
        ["records.list", "records.lookup"],
      );
      assert.equal(out.truncated, false);
    });
    await t2.step("signature without parameters", async () => {
      const out = valueOf(await c.call("search_api", { query: "time" }));
      assert.deepEqual(out.results, [{
        name: "time.now",
        signature: "time.now()",
        summary: "Current time",
      }]);
    });
    for (const query of ["", "   ", "._-/", "the and of", "zzzz nothing"]) {
      await t2.step(`empty success for ${JSON.stringify(query)}`, async () => {
        assert.deepEqual(valueOf(await c.call("search_api", { query })), {
          results: [],
          truncated: false,
        });
      });
    }
    await t2.step("more than 16 tokens is resource limit exceeded", async () => {
      const query = Array.from({ length: 17 }, (_, i) => `tok${String.fromCharCode(97 + i)}`).join(
        " ",
      );
      assert.equal(errorOf(await c.call("search_api", { query })), "resource limit exceeded");
    });
    await t2.step("query byte bound before trimming", async () => {
      assert.equal(
        errorOf(await c.call("search_api", { query: "records" + " ".repeat(1018) })),
        "resource limit exceeded",
      );
      valueOf(await c.call("search_api", { query: "records" + " ".repeat(1017) }));
    });
    await t2.step("extra and missing properties are rejected by the SDK", async () => {
      const extra = await c.call("search_api", { query: "x", extra: 1 });
      assert.equal(extra.isError, true);
      assert.match(errorOf(extra), /Unrecognized key/);
      assert.match(errorOf(await c.call("search_api", {})), /Input validation error/);
      assert.match(errorOf(await c.call("search_api", { query: 5 })), /Input validation error/);
    });
  } finally {
    await c.close();
  }
});

function manyRegistry(n: number): CapabilityRegistry {
  const registry = new CapabilityRegistry();
  for (let i = 0; i < n; i++) {
    registry.register({
      name: `widgets.w${String(i).padStart(3, "0")}`,
      summary: "widget",
      input: t.fields({ id: t.str() }),
      handler: () => ({}),
    });
  }
  return registry;
}

Deno.test("search_api result-count bound at, below and above", async () => {
  for (const [n, want, truncated] of [[2, 2, false], [3, 3, false], [4, 3, true]] as const) {
    const c = await connect({ registry: manyRegistry(n), limits: { maxSearchResults: 3 } });
    try {
      const out = valueOf(await c.call("search_api", { query: "widget" }));
      assert.equal((out.results as unknown[]).length, want);
      assert.equal(out.truncated, truncated);
    } finally {
      await c.close();
    }
  }
});

Deno.test("search_api structured-response byte bound at, below and above", async () => {
  const one = { name: "widgets.w000", signature: "widgets.w000(*, id: str)", summary: "widget" };
  const size = (k: number, truncated: boolean) =>
    JSON.stringify({ results: Array(k).fill(one), truncated }).length;
  // two capabilities: both fit exactly with truncated=false
  for (
    const [limit, want, truncated] of [
      [size(2, false), 2, false],
      [size(2, false) - 1, 1, true],
      [size(1, true), 1, true],
      [size(1, true) - 1, 0, true],
    ] as const
  ) {
    const c = await connect({
      registry: manyRegistry(2),
      limits: { maxSearchResponseBytes: limit },
    });
    try {
      const out = valueOf(await c.call("search_api", { query: "widget" }));
      assert.equal((out.results as unknown[]).length, want, `limit ${limit}`);
      assert.equal(out.truncated, truncated);
      assert.ok(JSON.stringify(out).length <= limit);
    } finally {
      await c.close();
    }
  }
});

Deno.test("search_api sees enable/disable changes", async () => {
  const registry = sampleRegistry();
  const c = await connect({ registry });
  try {
    registry.setEnabled("records.lookup", false);
    const out = valueOf(await c.call("search_api", { query: "records" }));
    assert.deepEqual((out.results as Array<{ name: string }>).map((r) => r.name), ["records.list"]);
  } finally {
    await c.close();
  }
});

Deno.test("search_api trims exactly Unicode White_Space before the exact-name rule", async () => {
  const registry = new CapabilityRegistry();
  for (const name of ["records.items", "items.records"]) {
    registry.register({ name, summary: "x", handler: () => ({}) });
  }
  const c = await connect({ registry });
  try {
    const order = async (query: string) =>
      (valueOf(await c.call("search_api", { query })).results as Array<{ name: string }>).map((
        r,
      ) => r.name);
    assert.deepEqual(await order("\u0085records.items"), ["records.items", "items.records"]);
    assert.deepEqual(await order("\ufeffrecords.items"), ["items.records", "records.items"]);
  } finally {
    await c.close();
  }
});
