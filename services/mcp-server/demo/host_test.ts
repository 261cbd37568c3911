import assert from "node:assert/strict";
import { createDemoRegistry, demoAuthorizer } from "./host.ts";
import { connect, errorOf, valueOf } from "../tools/_test_support.ts";

Deno.test("demo host: records and time.now through execute", async () => {
  const registry = createDemoRegistry({
    now: () => Date.UTC(2026, 0, 2, 3, 4, 5),
  });
  const c = await connect({ registry, authorizer: demoAuthorizer() });
  try {
    const d = valueOf(await c.call("describe_api", { name: "time.now" }));
    assert.equal(d.signature, "time.now()");
    assert.deepEqual(d.input, []);
    const out = valueOf(
      await c.call("execute", {
        source: `def main():
  records.put(key="b", value="2", labels={"env": "prod"})
  records.put(key="a", value="1", labels={"env": "dev"})
  prod = records.list(labels={"env": "prod"})["records"]
  gone = records.delete(key="a")["deleted"]
  return {"prod": [r["key"] for r in prod], "gone": gone, "left": len(records.list()["records"]),
          "missing": records.get(key="a")["record"], "now": time.now()}
`,
      }),
    );
    assert.deepEqual(out.result, {
      prod: ["b"],
      gone: true,
      left: 1,
      missing: null,
      now: { iso: "2026-01-02T03:04:05.000Z", unix_ms: Date.UTC(2026, 0, 2, 3, 4, 5) },
    });
    assert.equal(
      errorOf(await c.call("execute", { source: "def main():\n  return time.now(x=1)\n" })),
      "invalid capability arguments: unexpected keyword argument x",
    );
  } finally {
    await c.close();
  }
});

Deno.test("demoAuthorizer allows only the demo's own capabilities and the given API roots", () => {
  const allow = demoAuthorizer(["todos"]);
  const ask = (capability: string) => allow({ subject: { id: "x" }, capability, arguments: {} });
  assert.equal(ask("todos.list"), true);
  assert.equal(ask("records.put"), true);
  assert.equal(ask("time.now"), true);
  assert.equal(ask("billing.charge"), false);
  assert.equal(ask("timex.now"), false);
  assert.equal(ask("todosx.list"), false);
  assert.equal(
    demoAuthorizer()({ subject: { id: "x" }, capability: "todos.list", arguments: {} }),
    false,
  );
});
