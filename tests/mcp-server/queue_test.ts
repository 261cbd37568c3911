import assert from "node:assert/strict";
import { MAIN, PERMISSIONS, ROOT, startHttpStack } from "./_test_support.ts";

async function mcpServer(args: string[], env: Record<string, string> = {}) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMISSIONS, MAIN, ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

Deno.test("--max-queued-executions: in --help, validated at start in one line", async (t) => {
  await t.step("--help lists the flag, its env var and its default", async () => {
    const r = await mcpServer(["--help"]);
    assert.equal(r.code, 0);
    assert.match(
      r.stdout,
      /--max-queued-executions int\n.*resource limit exceeded.*\(default 512\)/,
    );
    assert.match(r.stdout, /env MCP_MAX_QUEUED_EXECUTIONS/);
  });
  for (
    const [args, env, text] of [
      [
        ["--max-queued-executions", "-1"],
        {},
        'mcp-server: Cannot read setting "max_queued_executions" from flag ' +
        "--max-queued-executions: must be at least 0\n",
      ],
      [
        [],
        { MCP_MAX_QUEUED_EXECUTIONS: "many" },
        'mcp-server: Cannot read setting "max_queued_executions" from environment variable ' +
        "MCP_MAX_QUEUED_EXECUTIONS: expected an integer\n",
      ],
    ] as const
  ) {
    await t.step(`refused: ${JSON.stringify({ ...env, args })}`, async () => {
      const r = await mcpServer([...args], env);
      assert.equal(r.code, 2);
      assert.equal(r.stderr, text);
    });
  }
});

Deno.test("http: executes beyond --max-queued-executions fail at once with resource limit exceeded", async (t) => {
  // one worker, one waiting place; each program takes a while (a loop of 300 000 steps)
  const stack = await startHttpStack([
    "--max-concurrent-executions",
    "1",
    "--max-queued-executions",
    "1",
  ]);
  try {
    const token = await stack.token("alice");
    const busy = (n: number) =>
      `def main():\n  x = 0\n  for i in range(300000):\n    x += i\n  return ${n}\n`;
    // One JSON-RPC batch: the transport hands its calls to the server in order, in one turn, so
    // the first takes the worker, the next ones queue in order.
    const batch = async (count: number) => {
      const res = await fetch(stack.mcpUrl, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify(Array.from({ length: count }, (_, i) => ({
          jsonrpc: "2.0",
          id: i + 1,
          method: "tools/call",
          params: { name: "execute", arguments: { source: busy(i + 1) } },
        }))),
      });
      assert.equal(res.status, 200);
      type Reply = { id: number; result: { content: { text: string }[] } };
      const replies = [await res.json()].flat() as Reply[]; // a batch of one may come back bare
      return replies.sort((a, b) => a.id - b.id).map((r) => r.result.content[0].text);
    };
    await t.step("below the cap: one running, none waiting", async () => {
      assert.deepEqual(await batch(1), ['{"result":1}']);
    });
    await t.step("at the cap: one running, one waiting", async () => {
      assert.deepEqual(await batch(2), ['{"result":1}', '{"result":2}']);
    });
    await t.step("above the cap: the third fails at once, the others answer", async () => {
      assert.deepEqual(await batch(3), [
        '{"result":1}',
        '{"result":2}',
        "resource limit exceeded",
      ]);
    });
  } finally {
    await stack.stop();
  }
});
