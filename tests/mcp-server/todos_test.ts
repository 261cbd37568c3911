/**
 * The demo host's `todos.*` against the real todo-api process (embedded PGlite, a real API key),
 * driven through the real mcp-server process over stdio with the SDK client.
 */
import assert from "node:assert/strict";
import { startService } from "@svc/shared/testing";
import { startStdio } from "./_test_support.ts";

const TODO_ENTRY = new URL("../../services/todo-api/main.ts", import.meta.url).pathname;

async function todoCli(args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", TODO_ENTRY, ...args],
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  if (out.code !== 0) throw new Error(`todo-api ${args.join(" ")}: ${dec.decode(out.stderr)}`);
  return dec.decode(out.stdout).trim();
}

Deno.test({
  name: "todos.* create, list, get and complete through mcp-server against the real todo-api",
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "mcp_todos_" });
    const env = { TODOAPI_DATA_DIR: `${dir}/db`, TODOAPI_DATABASE_URL: "" };
    try {
      await todoCli(["migrate", "up"], env);
      const key = await todoCli(["keys", "create", "--subject", "agent", "--role", "user"], env);
      const todo = await startService({
        entry: TODO_ENTRY,
        args: ["serve", "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"],
        env,
        listeners: ["api", "metrics"],
        timeoutMs: 60_000,
      });
      try {
        const s = await startStdio(["--todo-api-url", todo.url], { MCP_TODO_API_KEY: key });
        try {
          const ran = await s.call("execute", {
            source: `def main():
  a = todos.create(title="write the report")["todo"]
  b = todos.create(title="ship it")["todo"]
  done = todos.complete(id=a["id"])["todo"]
  page = todos.list(limit=10)
  again = todos.get(id=b["id"])["todo"]
  return {
    "titles": [t["title"] for t in page["todos"]],
    "done": [done["status"], "completedAt" in done],
    "open": [again["status"], "completedAt" in again],
    "more": "next_cursor" in page,
  }
`,
          });
          assert.deepEqual(ran.structuredContent, {
            result: {
              titles: ["write the report", "ship it"],
              done: ["completed", true],
              open: ["open", false],
              more: false,
            },
          }, JSON.stringify(ran.content));
          const missing = await s.call("execute", {
            source: 'def main():\n  return todos.get(id="00000000-0000-0000-0000-000000000000")\n',
          });
          assert.equal(missing.isError, true);
          assert.match(
            (missing.content[0] as { text: string }).text,
            /^capability failed: todo API answered 4\d\d/,
          );
        } finally {
          await s.close();
        }
        const noKey = await startStdio(["--todo-api-url", todo.url]);
        try {
          const r = await noKey.call("execute", { source: "def main():\n  return todos.list()\n" });
          assert.match(
            (r.content[0] as { text: string }).text,
            /^capability failed: todo API answered 401/,
          );
        } finally {
          await noKey.close();
        }
      } finally {
        await todo.stop();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
