import assert from "node:assert/strict";
import build from "../../services/mcp-server/build_info.json" with { type: "json" };
import { startStdio } from "./_test_support.ts";

Deno.test("stdio: the SDK client lists and calls the three tools of the real process", async (t) => {
  const s = await startStdio(["--subject", "alice"]);
  try {
    await t.step("tools/list", async () => {
      const { tools } = await s.client.listTools();
      assert.deepEqual(tools.map((x: { name: string }) => x.name).sort(), [
        "describe_api",
        "execute",
        "search_api",
      ]);
      const execute = tools.find((x: { name: string }) => x.name === "execute")!;
      assert.ok(execute.description!.includes("1000000 steps, 5s elapsed"), execute.description);
      assert.equal(execute.annotations?.readOnlyHint, false); // records.put writes
    });
    await t.step("initialize: the build's version and the recovery rules", () => {
      assert.deepEqual(s.client.getServerVersion(), { name: "mcp-server", version: build.version });
      assert.match(s.client.getInstructions() ?? "", /After `capability not found`: search again/);
    });
    await t.step("search, describe, execute against the demo host", async () => {
      const found = await s.call("search_api", { query: "store a record" });
      const names = (found.structuredContent as { results: { name: string }[] }).results
        .map((r) => r.name);
      assert.equal(names[0], "records.put");
      const described = await s.call("describe_api", { name: "records.put" });
      assert.equal(
        (described.structuredContent as { signature: string }).signature,
        "records.put(*, key: str, value: str, labels: dict[str, str] | None)",
      );
      const ran = await s.call("execute", {
        source: "def main():\n" +
          "  records.put(key='k1', value='v1', labels={'env': 'dev'})\n" +
          "  got = records.get(key='k1')['record']\n" +
          "  return {'value': got['value'], 'now': type(time.now()['unix_ms'])}\n",
      });
      assert.deepEqual(ran.structuredContent, { result: { value: "v1", now: "int" } });
      assert.equal(ran.content.length, 1);
      assert.deepEqual(
        JSON.parse((ran.content[0] as { text: string }).text),
        ran.structuredContent,
      );
    });
    await t.step("errors are isError results with the stable text", async () => {
      const r = await s.call("describe_api", { name: "records.nope" });
      assert.equal(r.isError, true);
      assert.deepEqual(r.content, [{ type: "text", text: "capability not found" }]);
      const bad = await s.call("execute", { source: "def main():\n  return records.get()\n" });
      assert.deepEqual(bad.content, [{
        type: "text",
        text: "invalid capability arguments: missing argument key",
      }]);
    });
  } finally {
    await s.close();
  }
});

Deno.test("stdio: a policy file denies by default", async () => {
  const dir = await Deno.makeTempDir();
  const policy = `${dir}/policy.json`;
  await Deno.writeTextFile(
    policy,
    JSON.stringify({ rules: [{ subjects: ["alice"], capabilities: ["time.now"] }] }),
  );
  for (const [subject, want] of [["alice", undefined], ["bob", "permission denied"]]) {
    const s = await startStdio(["--subject", subject!, "--policy", policy]);
    try {
      const r = await s.call("execute", {
        source: "def main():\n  return time.now()['iso'][:2]\n",
      });
      if (want) assert.deepEqual(r.content, [{ type: "text", text: want }]);
      else assert.deepEqual(r.structuredContent, { result: "20" });
      const denied = await s.call("execute", {
        source: "def main():\n  return records.get(key='x')\n",
      });
      assert.deepEqual(denied.content, [{ type: "text", text: "permission denied" }]);
    } finally {
      await s.close();
    }
  }
  await Deno.remove(dir, { recursive: true });
});

Deno.test("stdio: a capability the policy guards with a scope fails insufficient scope (no token)", async () => {
  const dir = await Deno.makeTempDir();
  const policy = `${dir}/policy.json`;
  await Deno.writeTextFile(
    policy,
    JSON.stringify({
      rules: [{ subjects: ["*"], capabilities: ["*"] }],
      scopes: [{ capabilities: ["records.put"], scopes: ["records:write"] }],
    }),
  );
  const s = await startStdio(["--subject", "alice", "--policy", policy]);
  try {
    const guarded = await s.call("execute", {
      source: "def main():\n  return records.put(key='k', value='v')['record']['key']\n",
    });
    assert.deepEqual(guarded.content, [{
      type: "text",
      text: "insufficient scope: records:write",
    }]);
    const open = await s.call("execute", {
      source: "def main():\n  return records.get(key='k')['record']\n",
    });
    assert.deepEqual(open.structuredContent, { result: null }); // the put never ran
  } finally {
    await s.close();
    await Deno.remove(dir, { recursive: true });
  }
});
