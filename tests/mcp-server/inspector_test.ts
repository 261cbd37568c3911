/**
 * The MCP Inspector CLI (`@modelcontextprotocol/inspector --cli`, run with npx) as an external
 * client: lists and calls the tools over stdio and over Streamable HTTP. Skipped, loudly, when
 * npx is missing or the package cannot be fetched.
 */
import assert from "node:assert/strict";
import { MAIN, PERMISSIONS, ROOT, startHttpStack } from "./_test_support.ts";
import { concurrentSteps, skipSuite } from "@svc/testing";

const INSPECTOR = "@modelcontextprotocol/inspector@2.12.0";

Deno.test("the README's Inspector command pins the version tested here", async () => {
  // Unpinned, npx on Node.js < 22.19 resolves an old Inspector that refuses URL-server arguments.
  const readme = await Deno.readTextFile(`${ROOT}services/mcp-server/README.md`);
  const pins = [...readme.matchAll(/npx (?:-y )?(@modelcontextprotocol\/inspector\S*)/g)].map((m) =>
    m[1]
  );
  assert.ok(pins.length > 0, "the README has an Inspector command");
  for (const pin of pins) assert.equal(pin, INSPECTOR);
});

async function inspector(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command("npx", {
    args: ["-y", INSPECTOR, "--cli", ...args],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

async function available(): Promise<string | undefined> {
  try {
    const r = await inspector(["--help"]);
    return r.code === 0
      ? undefined
      : `a runnable MCP Inspector CLI (inspector --help exited ${r.code}: ${
        r.stderr.slice(0, 200)
      })`;
  } catch (err) {
    return `npx (${(err as Error).message})`;
  }
}

const why = await available();
const ignore = skipSuite({ module: import.meta.url, needs: why });

const stdioServer = [Deno.execPath(), "run", ...PERMISSIONS, MAIN, "--"];

/** The cases: each its own Inspector run against its own server process, so side by side. */
const CASES: [string, () => Promise<void>][] = [
  ["stdio: tools/list names the three tools", async () => {
    const list = await inspector([...stdioServer, "--method", "tools/list"]);
    assert.equal(list.code, 0, list.stderr);
    const names = JSON.parse(list.stdout).tools.map((t: { name: string }) => t.name).sort();
    assert.deepEqual(names, ["describe_api", "execute", "search_api"]);
  }],
  ["stdio: tools/call runs execute", async () => {
    const call = await inspector([
      ...stdioServer,
      "--method",
      "tools/call",
      "--tool-name",
      "execute",
      "--tool-args-json",
      JSON.stringify({ source: "def main():\n  return [x * 2 for x in range(3)]\n" }),
      "--format",
      "json",
    ]);
    assert.equal(call.code, 0, call.stderr);
    assert.deepEqual(JSON.parse(call.stdout).result.structuredContent, { result: [0, 2, 4] });
  }],
  ["stdio: a tool error exits 5 with the tool's text", async () => {
    const err = await inspector([
      ...stdioServer,
      "--method",
      "tools/call",
      "--tool-name",
      "describe_api",
      "--tool-arg",
      "name=nope.x",
      "--format",
      "json",
    ]);
    assert.equal(err.code, 5); // Inspector v2: tool returned isError
    assert.deepEqual(JSON.parse(err.stdout).result.content, [
      { type: "text", text: "capability not found" },
    ]);
  }],
  ["Streamable HTTP with a bearer token: tools/call runs search_api", async () => {
    const stack = await startHttpStack();
    try {
      const token = await stack.token("inspector");
      const r = await inspector([
        stack.mcpUrl,
        "--transport",
        "http",
        "--header",
        `Authorization: Bearer ${token}`,
        "--method",
        "tools/call",
        "--tool-name",
        "search_api",
        "--tool-arg",
        "query=records",
        "--format",
        "json",
      ]);
      assert.equal(r.code, 0, r.stderr);
      const results = JSON.parse(r.stdout).result.structuredContent.results;
      assert.ok(results.some((x: { name: string }) => x.name === "records.get"));
    } finally {
      await stack.stop();
    }
  }],
];

Deno.test({
  name: "Inspector CLI lists and calls the tools over stdio and over Streamable HTTP",
  ignore,
  sanitizeResources: false,
  async fn(t) {
    await concurrentSteps(t, CASES, { concurrency: 4, name: ([n]) => n }, ([, fn]) => fn());
  },
});
