import assert from "node:assert/strict";
import { t } from "./schema.ts";
import { describeInput, describeOutput, inputType, outputType, signature } from "./notation.ts";

Deno.test("inputType renders every row of the input notation table", async (t2) => {
  const rows: Array<[string, ReturnType<typeof t.str>, string]> = [
    ["string", t.str(), "str"],
    ["int8", t.int8(), "int"],
    ["int16", t.int16(), "int"],
    ["int32", t.int32(), "int"],
    ["int64", t.int64(), "int"],
    ["uint8", t.uint8(), "int"],
    ["uint16", t.uint16(), "int"],
    ["uint32", t.uint32(), "int"],
    ["uint64", t.uint64(), "int"],
    ["bool", t.bool(), "bool"],
    ["float32", t.float32(), "float"],
    ["float64", t.float64(), "float"],
    ["slice", t.list(t.str()), "list[str]"],
    ["byte slice", t.bytes(), "list[int]"],
    ["string map", t.dict(t.int()), "dict[str, int]"],
    ["named string-kind map key", t.map(t.named("Key", t.str()), t.bool()), "dict[str, bool]"],
    ["nested struct", t.struct({ a: t.str(), b: t.ptr(t.int()) }), "{a: str, b: int | None}"],
    ["pointer", t.ptr(t.float64()), "float | None"],
    ["pointer to pointer", t.ptr(t.ptr(t.str())), "str | None"],
    ["named type", t.named("UserID", t.uint32()), "int"],
    [
      "recursive composition",
      t.list(t.dict(t.list(t.ptr(t.str())))),
      "list[dict[str, list[str | None]]]",
    ],
    ["quoted non-identifier", t.struct({ "x-y": t.str(), if: t.int() }), '{"x-y": str, if: int}'],
  ];
  for (const [what, schema, want] of rows) {
    await t2.step(what, () => assert.equal(inputType(schema), want));
  }
});

Deno.test("describeInput marks pointers optional and keeps declaration order", () => {
  const fields = t.fields({ key: t.str(), limit: t.ptr(t.int()), tags: t.list(t.str()) });
  assert.deepEqual(describeInput(fields), [
    { name: "key", type: "str", required: true },
    { name: "limit", type: "int | None", required: false },
    { name: "tags", type: "list[str]", required: true },
  ]);
});

Deno.test("outputType renders every row of the output notation table", async (t2) => {
  const rows: Array<[string, ReturnType<typeof t.str>, string]> = [
    ["string", t.str(), "str"],
    ["integer", t.uint16(), "int"],
    ["Boolean", t.bool(), "bool"],
    ["float", t.float32(), "float"],
    ["array or slice", t.list(t.int()), "list[int]"],
    ["bytes", t.bytes(), "list[int]"],
    ["string-keyed map", t.dict(t.str()), "dict[str, str]"],
    ["pointer", t.ptr(t.str()), "str | None"],
    ["pointer layers append | None once", t.ptr(t.ptr(t.list(t.int()))), "list[int] | None"],
    [
      "struct with omit-when-empty pointer",
      t.struct([
        t.field("field", t.str()),
        t.field("optional", t.ptr(t.int()), { omitEmpty: true }),
        t.field("nullable", t.ptr(t.int())),
        t.field("a-b", t.bool()),
      ]),
      '{field: str, optional?: int, nullable: int | None, "a-b": bool}',
    ],
  ];
  for (const [what, schema, want] of rows) {
    await t2.step(what, () => assert.equal(outputType(schema), want));
  }
});

Deno.test("describeOutput: root omit-when-empty pointer is optional without | None", () => {
  const fields = [
    t.field("value", t.ptr(t.str()), { omitEmpty: true }),
    t.field("maybe", t.ptr(t.str())),
    t.field("count", t.int()),
    t.field("class", t.str()),
  ];
  assert.deepEqual(describeOutput(fields), [
    { name: "value", type: "str", required: false },
    { name: "maybe", type: "str | None", required: true },
    { name: "count", type: "int", required: true },
    { name: "class", type: "str", required: true },
  ]);
});

Deno.test("signature is invocation-only keyword form", () => {
  assert.equal(
    signature("records.find", t.fields({ key: t.str(), limit: t.ptr(t.int()) })),
    "records.find(*, key: str, limit: int | None)",
  );
  assert.equal(signature("time.now", []), "time.now()");
});
