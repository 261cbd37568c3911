import assert from "node:assert/strict";
import { CapabilityRegistry, RegistrationError } from "./registry.ts";
import { type Schema, t } from "./schema.ts";
import type { Field } from "./schema.ts";

const handler = () => ({});

function register(registry: CapabilityRegistry, name: string, more: {
  input?: Field[];
  output?: Field[];
} = {}) {
  return registry.register({ name, summary: "s", handler, ...more });
}

Deno.test("register accepts dotted names and nested reserved leaves", () => {
  const registry = new CapabilityRegistry();
  register(registry, "records.lookup");
  register(registry, "stats.sum");
  register(registry, "a.b.c_d");
  assert.deepEqual(registry.enabled().map((c) => c.name), [
    "records.lookup",
    "stats.sum",
    "a.b.c_d",
  ]);
});

Deno.test("register rejects bad and reserved names", async (t2) => {
  const bad = [
    "lookup",
    "records.",
    ".x",
    "records.look-up",
    "records.if",
    "1a.b",
    "set.add",
    "sum.x",
    "json.get",
    "math.x",
    "len.x",
    "True.x",
    "None.y",
    "print.x",
    "records lookup",
  ]; // deno-fmt-ignore
  for (const name of bad) {
    await t2.step(name, () =>
      assert.throws(() => register(new CapabilityRegistry(), name), RegistrationError));
  }
});

Deno.test("register rejects duplicates and name/namespace conflicts", () => {
  const registry = new CapabilityRegistry();
  register(registry, "a.b");
  assert.throws(() => register(registry, "a.b"), /already registered/);
  assert.throws(() => register(registry, "a.b.c"), /conflicts/);
  register(registry, "x.y.z");
  assert.throws(() => register(registry, "x.y"), /conflicts/);
});

Deno.test("register rejects what the host rejects before exposure", async (t2) => {
  const cyclic: Schema = t.struct([]);
  (cyclic as { fields: Field[] }).fields.push(t.field("next", t.ptr(t.lazy(() => cyclic))));
  const cases: Array<[string, { input?: Field[]; output?: Field[] }, RegExp]> = [
    ["interface", { output: t.fields({ v: t.any() }) }, /interface/],
    ["raw JSON", { output: t.fields({ v: t.rawJson() }) }, /raw JSON/],
    ["marshaler", { output: t.fields({ v: t.marshaler(t.str()) }) }, /marshaling/],
    ["non-string map key", { output: t.fields({ v: t.map(t.int(), t.str()) }) }, /keys/],
    ["cyclic graph", { output: t.fields({ v: cyclic }) }, /cyclic/],
    ["unsupported scalar", { output: t.fields({ v: t.unsupported("complex128") }) }, /complex/],
    ["embedded field", { output: [t.field("v", t.str(), { embedded: true })] }, /embedded/],
    ["unexported field", { output: [t.field("v", t.str(), { unexported: true })] }, /unexported/],
    ["empty tag", { output: [t.field("", t.str())] }, /invalid field name/],
    ["tag with comma", { output: [t.field("a,b", t.str())] }, /invalid field name/],
    ["tag with quote", { output: [t.field('a"b', t.str())] }, /invalid field name/],
    ["omit-when-empty non-pointer", {
      output: [t.field("v", t.str(), { omitEmpty: true })],
    }, /omit-when-empty/],
    ["duplicate output field", { output: [t.field("v", t.str()), t.field("v", t.int())] }, /dup/],
    ["root input keyword", { input: t.fields({ if: t.str() }) }, /identifiers/],
    ["root input non-identifier", { input: t.fields({ "a-b": t.str() }) }, /identifiers/],
    ["interface input", { input: t.fields({ v: t.any() }) }, /interface/],
    ["nested cyclic input", { input: t.fields({ v: cyclic }) }, /cyclic/],
  ];
  for (const [what, def, want] of cases) {
    await t2.step(
      what,
      () => assert.throws(() => register(new CapabilityRegistry(), "x.y", def), want),
    );
  }
});

Deno.test("register accepts keyword and non-identifier names where tags are allowed", () => {
  const registry = new CapabilityRegistry();
  const cap = register(registry, "x.y", {
    input: t.fields({ filter: t.struct({ "owner-id": t.str(), if: t.ptr(t.str()) }) }),
    output: t.fields({ class: t.str(), "a-b": t.int() }),
  });
  assert.equal(cap.signature, 'x.y(*, filter: {"owner-id": str, if: str | None})');
});

Deno.test("setEnabled hides a capability and bumps the version", () => {
  const registry = new CapabilityRegistry();
  register(registry, "a.b");
  const v = registry.version;
  registry.setEnabled("a.b", false);
  assert.equal(registry.get("a.b"), undefined);
  assert.deepEqual(registry.enabled(), []);
  assert.ok(registry.version > v);
  registry.setEnabled("a.b", true);
  assert.equal(registry.get("a.b")?.name, "a.b");
  assert.throws(() => registry.setEnabled("nope.x", true), RangeError);
  registry.register({ name: "c.d", summary: "", handler, enabled: false });
  assert.equal(registry.get("c.d"), undefined);
});
