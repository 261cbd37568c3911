import assert from "node:assert/strict";
import { CapabilityRegistry } from "../capabilities/registry.ts";
import { t } from "../capabilities/schema.ts";
import { connect, errorOf, valueOf } from "./_test_support.ts";

Deno.test("describe_api: exact lookup with notation in declaration order", async (t2) => {
  const registry = new CapabilityRegistry();
  registry.register({
    name: "records.find",
    id: "cap-123",
    summary: "Find records",
    description: "Finds records by filter.",
    input: t.fields({
      filter: t.struct({ owner: t.str(), "x-tag": t.ptr(t.str()) }),
      limit: t.ptr(t.uint32()),
      data: t.bytes(),
    }),
    output: [
      t.field(
        "items",
        t.list(t.struct([
          t.field("id", t.int64()),
          t.field("note", t.ptr(t.str()), { omitEmpty: true }),
        ])),
      ),
      t.field("next", t.ptr(t.str()), { omitEmpty: true }),
      t.field("labels", t.dict(t.float32())),
    ],
    handler: () => ({}),
  });
  registry.register({ name: "time.now", summary: "now", handler: () => ({}) });
  registry.register({ name: "off.cap", summary: "hidden", enabled: false, handler: () => ({}) });
  const c = await connect({ registry });
  try {
    await t2.step("full description", async () => {
      const out = valueOf(await c.call("describe_api", { name: "records.find" }));
      assert.deepEqual(out, {
        name: "records.find",
        signature:
          'records.find(*, filter: {owner: str, "x-tag": str | None}, limit: int | None, data: list[int])',
        summary: "Find records",
        description: "Finds records by filter.",
        input: [
          { name: "filter", type: '{owner: str, "x-tag": str | None}', required: true },
          { name: "limit", type: "int | None", required: false },
          { name: "data", type: "list[int]", required: true },
        ],
        output: [
          { name: "items", type: "list[{id: int, note?: str}]", required: true },
          { name: "next", type: "str", required: false },
          { name: "labels", type: "dict[str, float]", required: true },
        ],
      });
      assert.ok(!JSON.stringify(out).includes("cap-123"));
    });
    await t2.step("empty input and output are []", async () => {
      const out = valueOf(await c.call("describe_api", { name: "time.now" }));
      assert.deepEqual(out.input, []);
      assert.deepEqual(out.output, []);
      assert.equal(out.signature, "time.now()");
      assert.equal(out.description, "");
    });
    for (
      const name of ["records.Find", " records.find", "records.find ", "records", "off.cap", ""]
    ) {
      await t2.step(`capability not found: ${JSON.stringify(name)}`, async () => {
        assert.equal(errorOf(await c.call("describe_api", { name })), "capability not found");
      });
    }
    await t2.step("extra property rejected", async () => {
      assert.match(
        errorOf(await c.call("describe_api", { name: "time.now", x: 1 })),
        /Unrecognized key/,
      );
    });
  } finally {
    await c.close();
  }
});
