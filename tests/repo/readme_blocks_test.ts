/**
 * Every command a README tells a user to run is run here (`readme_blocks.ts` explains the marks),
 * or by the test its mark names, or its mark says why it cannot be: a block without a valid mark
 * fails, so a new README command cannot go untested unnoticed.
 */
import assert from "node:assert/strict";
import { concurrentSteps } from "@svc/testing";
import {
  allBlocks,
  allClientConfigBlocks,
  clientConfigBlocks,
  commandsOf,
  parseMark,
  ROOT,
  runBlock,
  shellBlocks,
  where,
} from "./readme_blocks.ts";

const blocks = await allBlocks();

Deno.test("every shell block of every README carries a valid readme-test mark", async () => {
  assert.ok(blocks.length >= 15, `found ${blocks.length} blocks`);
  const files = new Set(blocks.map((b) => b.file));
  for (const f of ["README.md", "services/mcp-server/README.md", "services/todo-api/README.md"]) {
    assert.ok(files.has(f), f);
  }
  for (const block of blocks) {
    const mark = block.mark;
    assert.ok(mark, `${where(block)}: add a readme-test mark before the fence`);
    assert.notEqual(mark.kind, "invalid", `${where(block)}: ${JSON.stringify(mark)}`);
    if (mark.kind === "tested-by") {
      const test = await Deno.readTextFile(`${ROOT}${mark.path}`);
      assert.ok(test.includes(block.file), `${mark.path} reads ${block.file} (${where(block)})`);
    }
    if (mark.kind === "run") {
      assert.ok((mark.serve ?? 1) <= block.commands.length, where(block));
    }
  }
});

Deno.test("every MCP client configuration of a README is run by the test its mark names", async () => {
  const configs = await allClientConfigBlocks();
  assert.ok(
    configs.some((b) => b.file === "services/mcp-server/README.md"),
    "mcp-server's README has a client configuration",
  );
  for (const block of configs) {
    const mark = block.mark;
    assert.equal(mark?.kind, "tested-by", `${where(block)}: a client configuration is tested-by`);
    if (mark?.kind !== "tested-by") continue;
    const test = await Deno.readTextFile(`${ROOT}${mark.path}`);
    assert.ok(test.includes(block.file), `${mark.path} reads ${block.file} (${where(block)})`);
    assert.ok(test.includes("clientConfigBlocks"), `${mark.path} runs the configuration`);
  }
  const md = [
    "<!-- readme-test: tested-by t.ts -->",
    "",
    "```json",
    '{"mcpServers": {}}',
    "```",
    "```json",
    '{"other": 1}',
    "```",
  ].join("\n");
  assert.deepEqual(clientConfigBlocks("R.md", md).map((b) => [b.line, b.text, b.mark]), [
    [3, '{"mcpServers": {}}', { kind: "tested-by", path: "t.ts" }],
  ]);
});

Deno.test("marks: run with env, placeholders and a server; tested-by; not-run; invalid ones", () => {
  assert.deepEqual(parseMark("<!-- readme-test: run -->"), {
    kind: "run",
    env: {},
    serve: undefined,
    ready: undefined,
  });
  assert.deepEqual(
    parseMark('<!-- readme-test: run serve=2 ready="a b" X_Y=127.0.0.1:{port} -->'),
    { kind: "run", env: { X_Y: "127.0.0.1:{port}" }, serve: 2, ready: "a b" },
  );
  assert.deepEqual(parseMark("<!-- readme-test: tested-by deploy/dev_test.ts -->"), {
    kind: "tested-by",
    path: "deploy/dev_test.ts",
  });
  assert.deepEqual(parseMark("<!-- readme-test: not-run it runs this very suite -->"), {
    kind: "not-run",
    reason: "it runs this very suite",
  });
  for (
    const bad of [
      "<!-- readme-test: not-run -->",
      "<!-- readme-test: tested-by -->",
      "<!-- readme-test: run serve=1 -->",
      '<!-- readme-test: run ready="x" -->',
      '<!-- readme-test: run serve=0 ready="x" -->',
      "<!-- readme-test: run lower=1 -->",
      "<!-- readme-test: run stray -->",
      "<!-- readme-test: skip -->",
    ]
  ) {
    assert.equal(parseMark(bad)?.kind, "invalid", bad);
  }
  assert.equal(parseMark("<!-- a comment -->"), undefined);
});

Deno.test("blocks: shell fences only, commands split on lines with continuations joined", () => {
  const md = [
    "<!-- readme-test: run -->",
    "",
    "```sh",
    "a --x \\",
    "  --y   # note",
    "",
    "# comment",
    "b",
    "```",
    "```json",
    '{"not": "shell"}',
    "```",
    "```console",
    "c",
    "```",
  ].join("\n");
  const found = shellBlocks("R.md", md);
  assert.deepEqual(found.map((b) => [b.line, b.commands, b.mark?.kind]), [
    [3, ["a --x \\\n  --y   # note", "b"], "run"],
    [13, ["c"], undefined],
  ]);
  assert.deepEqual(commandsOf("x\\\n"), ["x\\\n"]); // an unfinished continuation is kept
});

Deno.test("runBlock: fills placeholders, serves, stops like Ctrl-C; fails on any failing step", async () => {
  const block = (text: string, mark: string) =>
    shellBlocks("T.md", `${mark}\n\`\`\`sh\n${text}\n\`\`\``)[0];
  const server = `trap 'exit 0' INT; echo "up on $PORT_A"; while :; do sleep 0.1; done`;
  const ok = block(
    `${server}\necho "$PORT_A $PORT_B $DIR"`,
    "<!-- readme-test: run serve=1 ready=up PORT_A={port} PORT_B={port} DIR={scratch} -->",
  );
  const [out] = await runBlock(ok);
  const [a, b, dir] = out.stdout.trim().split(" ");
  assert.match(a, /^\d+$/);
  assert.notEqual(a, b);
  assert.match(dir, /^\.\/\.data\/readme-test-/);
  await assert.rejects(
    runBlock(block("true\nfalse", "<!-- readme-test: run -->")),
    /`false` exited 1/,
  );
  await assert.rejects(
    runBlock(block("echo bye", '<!-- readme-test: run serve=1 ready="never" -->')),
    /ended \(0\) before "never"/,
  );
  await assert.rejects(
    runBlock(
      block(
        "trap 'exit 3' INT; echo up; while :; do sleep 0.1; done",
        "<!-- readme-test: run serve=1 ready=up -->",
      ),
    ),
    /the server exited 3/,
  );
});

// Each block runs in its own processes on its own ports and scratch directory, so side by side.
const runBlocks = blocks.filter((b) => b.mark?.kind === "run");
Deno.test({
  name: "README commands run",
  ignore: runBlocks.length === 0,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    await concurrentSteps(t, runBlocks, {
      concurrency: 3,
      name: (block) => `${where(block)} ${block.commands[0].split("\n")[0]}`,
    }, async (block) => void await runBlock(block));
  },
});
