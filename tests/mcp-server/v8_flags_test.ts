/**
 * mcp-server runs with the V8 flags of `deploy/services.ts` (a small young generation and a fixed
 * heap growth, for its memory under load). They are the whole process's, so its execute workers
 * run with them too: memory-heavy but legal programs must still answer, and a runaway one must
 * still end as `resource limit exceeded` with the server alive.
 */
import assert from "node:assert/strict";
import { connectHttp, startHttpStack, V8_FLAGS } from "./_test_support.ts";

const main = (body: string) => `def main():\n${body.replace(/^/gm, "  ")}\n`;

Deno.test("deployed V8 flags: the server runs with them; heavy programs answer, runaway ones end", async (t) => {
  assert.deepEqual(V8_FLAGS, ["--max-semi-space-size=1", "--heap-growing-percent=25"]);
  const stack = await startHttpStack([
    "--worker-heap-mb",
    "64",
    "--max-concurrent-executions",
    "2",
  ]);
  try {
    await t.step("the process carries the flags", async () => {
      const cmdline = (await Deno.readTextFile(`/proc/${stack.server.pid}/cmdline`)).split("\0");
      assert.ok(cmdline.includes(`--v8-flags=${V8_FLAGS.join(",")}`), cmdline.join(" "));
    });
    const session = await connectHttp(stack.mcpUrl, await stack.token("alice"));
    const run = async (body: string) => {
      const r = await session.call("execute", { source: main(body) });
      return r.isError ? (r.content[0] as { text: string }).text : r.structuredContent;
    };
    try {
      await t.step("a dict of 50 000 lists and a string of 800 000 bytes", async () => {
        const body = 'd = {str(i): [i, i] for i in range(50000)}\ns = "ab" * 400000\n' +
          "return len(d) + len(s)";
        assert.deepEqual(await run(body), { result: 850_000 });
      });
      await t.step("a list of 100 000 ints, sorted, on both workers at once", async () => {
        const body = "xs = sorted([(i * 7919) % 100000 for i in range(100000)])\nreturn xs[-1]";
        assert.deepEqual(await Promise.all([run(body), run(body)]), [
          { result: 99_999 },
          { result: 99_999 },
        ]);
      });
      await t.step("a program that keeps allocating: resource limit exceeded", async () => {
        const body =
          "xs = []\nfor i in range(100000000):\n  xs.append([i, str(i)])\nreturn len(xs)";
        assert.equal(await run(body), "resource limit exceeded");
      });
      await t.step("the next call answers normally", async () => {
        assert.deepEqual(await run("return 6 * 7"), { result: 42 });
      });
    } finally {
      await session.close();
    }
  } finally {
    await stack.stop();
  }
});
