/**
 * End-to-end: `deno task dev` as a newcomer runs it, the root README's command verbatim, in a
 * fresh checkout: a temporary directory holding the files `git clone` would give plus any
 * uncommitted work (`git ls-files --cached --others --exclude-standard`), so no `node_modules`,
 * no `.data` and no `dist` of the worktree leak in, and what is being changed is what is tested.
 * (The worktree itself cannot be used: the tasks' grants fix the data directory at ./.data, which
 * would then be the developer's own.) The dev ports are fixed (8080-8082, 8090, 8092, 9090-9092),
 * so this file must not run twice at once; it fails up front, naming the port, when one is taken.
 *
 * It waits for every service's health route (runner-ctl, which has none: its "message session
 * created" line), runs every hint of the start-up table as printed (each page it names answers;
 * todo-api's key command makes a key through the running todo-api with the admin key dev made,
 * and the key works; mcp-server's token command gets a token), and todo-api's own advice when
 * `keys` finds the database held (its `curl` line, at the address todo-api really listens on);
 * calls `todos.list_todos` (todo-api through its own OpenAPI document) through MCP `execute` with
 * the SDK client and that token, stops dev like Ctrl-C does (SIGINT to its process group) and then
 * starts it again with todo-api's port taken: dev reports `todo-api exited with code N`, stops the
 * others and fails.
 *
 * It also runs, verbatim and in the same checkout, the README blocks that need the dev ports
 * (their marks name this file): while dev runs, `services/mcp-server/README.md`'s token + MCP
 * Inspector command and its two MCP client configurations (the JSON one with its placeholders
 * filled, and the server command of the Claude Code one), each of which must find `todos.*` with
 * `search_api` and call one; after it stopped, the root README's image-proxy block (its own dev
 * runner on :8082) and `services/mcp-server/README.md`'s "Run it" block (HTTP on :8090). The
 * image-proxy block runs after `deno install` with the npm registry out of reach and an empty Deno
 * cache: what a README command needs is in the workspace's lock and in what `deno install` set up
 * (its S3 server's package was fetched at first use outside both, and failed there).
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { SERVICES } from "./services.ts";
import { ADMIN_KEY_FILE, MCP_KEY_FILE } from "./dev/todo_key.ts";
import {
  clientConfigBlocks,
  type ReadmeBlock,
  runBlock,
  runCommand,
  shellBlocks,
} from "../tests/repo/readme_blocks.ts";

const WORKTREE = new URL("../", import.meta.url).pathname;
const PORTS = [8080, 8081, 8082, 8090, 8092, 9090, 9091, 9092];

/** The root README's `deno task dev` block: the command this test runs as written. */
async function readmeDevCommand(): Promise<string> {
  const readme = await Deno.readTextFile(`${WORKTREE}README.md`);
  const block = /```sh\n(deno task dev\b[^\n]*)\n```/.exec(readme)?.[1];
  assert.ok(block, "README.md has a sh block with `deno task dev`");
  return block;
}

async function freshCheckout(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "dev_checkout_" });
  const out = await new Deno.Command("git", {
    args: ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    cwd: WORKTREE,
    stdout: "piped",
  }).output();
  assert.equal(out.code, 0);
  for (const path of new TextDecoder().decode(out.stdout).split("\0").filter(Boolean)) {
    try {
      const stat = await Deno.lstat(`${WORKTREE}${path}`);
      if (!stat.isFile) continue;
    } catch {
      continue; // deleted in the work tree but not yet in the index
    }
    const to = `${dir}/${path}`;
    await Deno.mkdir(to.slice(0, to.lastIndexOf("/")), { recursive: true });
    await Deno.copyFile(`${WORKTREE}${path}`, to);
  }
  return dir;
}

function assertPortsFree() {
  for (const port of PORTS) {
    try {
      Deno.listen({ hostname: "127.0.0.1", port }).close();
    } catch {
      assert.fail(`port ${port} is in use: stop the running \`deno task dev\` (or other user)`);
    }
  }
}

/** `deno task dev` running in its own process group, with every output line recorded. */
interface Dev {
  lines: string[];
  /** Resolves once `predicate` holds for the lines seen (checked again at each new line). */
  until(predicate: (lines: readonly string[]) => boolean | Promise<boolean>): Promise<void>;
  /** Ctrl-C: SIGINT to the whole process group, as a terminal sends it. */
  interrupt(): void;
  status: Promise<Deno.CommandStatus>;
  /** Resolves when both output streams ended. */
  drained: Promise<unknown>;
}

function startDev(dir: string, command: string): Dev {
  const child = new Deno.Command("setsid", {
    args: ["bash", "-c", command],
    cwd: dir,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  const read = async (stream: ReadableStream<Uint8Array>) => {
    let pending = "";
    for await (const text of stream.pipeThrough(new TextDecoderStream())) {
      const parts = (pending + text).split("\n");
      pending = parts.pop()!;
      lines.push(...parts);
      for (const w of [...waiters]) w();
    }
    for (const w of [...waiters]) w();
  };
  const drained = Promise.all([read(child.stdout), read(child.stderr)]);
  return {
    lines,
    status: child.status,
    drained,
    interrupt: () => Deno.kill(-child.pid, "SIGINT"),
    until(predicate) {
      return new Promise((resolve, reject) => {
        let busy = false;
        let again = false;
        let done = false;
        const finish = (err?: Error) => {
          if (done) return;
          done = true;
          waiters.delete(check);
          clearTimeout(guard);
          err ? reject(err) : resolve();
        };
        // A guard against a hang, not a wait: readiness comes from the output lines.
        const guard = setTimeout(
          () => finish(new Error(`not ready within 5 min:\n${lines.join("\n")}`)),
          300_000,
        );
        const check = async () => {
          if (done) return;
          if (busy) {
            again = true; // a line came in while checking: check once more afterwards
            return;
          }
          busy = true;
          try {
            do {
              again = false;
              if (await predicate(lines)) return finish();
            } while (again && !done);
          } finally {
            busy = false;
          }
        };
        waiters.add(check);
        child.status.then((s) =>
          finish(new Error(`dev exited (${s.code}) first:\n${lines.join("\n")}`))
        );
        check();
      });
    },
  };
}

/** The README blocks whose mark names this file, by the first command's start. */
async function markedBlock(file: string, start: string): Promise<ReadmeBlock> {
  const blocks = shellBlocks(file, await Deno.readTextFile(`${WORKTREE}${file}`));
  const block = blocks.find((b) => b.commands[0]?.startsWith(start));
  assert.ok(block, `${file} has a block starting ${start}`);
  assert.deepEqual(block.mark, { kind: "tested-by", path: "deploy/dev_test.ts" });
  return block;
}

async function healthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(url);
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** What a row of the start-up table's OPEN column tells to do: pages to open, commands to run. */
function hintsOf(open: string) {
  return {
    // "/docs (API)", "/_mock/ui (console)", …
    paths: [...open.matchAll(/(?:^|, |; )(\/[^\s,;]*) \(/g)].map((m) => m[1]),
    commands: [...open.matchAll(/(?:^|; )(?:a key|a bearer token): ([^;]+)/g)].map((m) => m[1]),
    issuer: /(?:^|; )issuer (\/\S+)/.exec(open)?.[1],
  };
}

/** The capabilities `search_api` finds for "todo" through an MCP server over stdio. */
async function todoCapabilitiesOverStdio(
  server: { command: string; args: string[]; env?: Record<string, string>; cwd: string },
): Promise<string[]> {
  const transport = new StdioClientTransport({ ...server, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  const client = new Client({ name: "dev-test-stdio", version: "1.0.0" });
  try {
    await client.connect(transport);
    const found = (await client.callTool({
      name: "search_api",
      arguments: { query: "todo" },
    })) as CallToolResult;
    assert.equal(found.isError, undefined, JSON.stringify(found.content) + stderr);
    const names = (found.structuredContent as { results: { name: string }[] }).results
      .map((r) => r.name);
    // Found and callable with the key the configuration hands over.
    const listed = (await client.callTool({
      name: "execute",
      arguments: { source: "def main():\n  return todos.list_todos(limit=1)\n" },
    })) as CallToolResult;
    assert.equal(listed.isError, undefined, JSON.stringify(listed.content) + stderr);
    return names;
  } catch (err) {
    throw new Error(`${(err as Error).message}\nserver stderr:\n${stderr}`);
  } finally {
    await client.close();
  }
}

Deno.test({
  name:
    "deno task dev from a fresh checkout: table, health, todos.list_todos over MCP, Ctrl-C, a death",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    assertPortsFree();
    const command = await readmeDevCommand();
    const dir = await freshCheckout();
    try {
      await t.step("starts every service and prints the table", async () => {
        const dev = startDev(dir, command);
        try {
          // Each service's own lines trigger a look at its health route: no polling on a timer.
          for (const svc of SERVICES) {
            const health = svc.devInfo.health;
            await dev.until(async (lines) => {
              const own = lines.filter((l) => l.startsWith(`${svc.name} `));
              if (own.length === 0) return false;
              return health
                ? await healthy(health)
                : own.some((l) => l.includes('"message session created"'));
            });
          }
          const out = dev.lines.join("\n");
          assert.match(out, /^SERVICE +URL +OPEN$/m);
          for (const svc of SERVICES) {
            const row = new RegExp(
              `^${svc.name} +${RegExp.escape(svc.devInfo.url)} +${
                RegExp.escape(svc.devInfo.open)
              }$`,
              "m",
            );
            assert.match(out, row);
          }
          assert.match(
            out,
            /^dev: mcp-server's todos\.\* use todo-api key \S+ \(subject mcp-demo, created now;/m,
          );
          assert.match(
            out,
            /^dev: todo-api admin key \S+ \(subject dev-admin, created now; kept in \S+,/m,
          );

          // Every hint of the table, as printed, works while dev runs.
          const hints = SERVICES.map((svc) => ({ svc, ...hintsOf(svc.devInfo.open) }));
          assert.deepEqual(
            hints.map((h) => [h.svc.name, h.paths, h.commands.length, h.issuer]),
            [
              ["mock-oidc", ["/docs", "/_mock/ui", "/default/debugger"], 0, "/default"],
              ["todo-api", ["/docs"], 1, undefined],
              ["image-proxy", ["/streams/v1/index.json"], 0, undefined],
              ["mcp-server", [], 1, undefined],
              ["runner-ctl", [], 0, undefined],
            ],
          );
          for (const { svc, paths, issuer } of hints) {
            for (const path of paths) {
              const page = await fetch(`${svc.devInfo.url}${path}`);
              await page.body?.cancel();
              assert.equal(page.status, 200, `${svc.name}: ${path}`);
            }
            if (issuer) {
              const res = await fetch(
                `${svc.devInfo.url}${issuer}/.well-known/openid-configuration`,
              );
              assert.equal((await res.json()).issuer, `${svc.devInfo.url}${issuer}`);
            }
          }
          const [keyCommand] = hints[1].commands;
          const made = await runCommand(keyCommand, {}, dir);
          assert.equal(made.code, 0, made.stderr);
          const userKey = made.stdout.trim();
          assert.match(userKey, /^todo_\S+$/);
          assert.match(made.stderr, /^created key \S+ for me \(user\);/m);
          const withKey = await fetch("http://127.0.0.1:8081/v1/todos", {
            headers: { "x-api-key": userKey },
          });
          assert.equal(withKey.status, 200, await withKey.text());
          const [tokenCommand] = hints[3].commands;
          const minted = await runCommand(tokenCommand, {}, dir);
          assert.equal(minted.code, 0, minted.stderr);
          const token = JSON.parse(minted.stdout).access_token;
          assert.ok(token, minted.stdout);

          // `keys` on the held database (todo-api's README form): its advice names where todo-api
          // really listens, and its curl line works with the admin key dev made.
          const locked = await runCommand(
            "deno task keys create --subject you --role user",
            {},
            dir,
          );
          assert.equal(locked.code, 1, locked.stdout);
          assert.match(locked.stderr, /in use by another process \(pid \d+\)/);
          assert.match(locked.stderr, /--url http:\/\/127\.0\.0\.1:8081 /);
          const curl = /^ {2}(curl .*)$/m.exec(locked.stderr)?.[1] ?? "";
          assert.ok(curl.endsWith(" http://127.0.0.1:8081/v1/keys"), locked.stderr);
          const admin = (await Deno.readTextFile(`${dir}/${ADMIN_KEY_FILE}`)).trim();
          const viaCurl = await runCommand(curl, { TODOAPI_API_KEY: admin }, dir);
          assert.equal(viaCurl.code, 0, viaCurl.stderr);
          assert.equal(JSON.parse(viaCurl.stdout).subject, "you");

          const client = new Client({ name: "dev-test", version: "1.0.0" });
          await client.connect(
            new StreamableHTTPClientTransport(new URL("http://127.0.0.1:8090/mcp"), {
              requestInit: { headers: { authorization: `Bearer ${token}` } },
            }),
          );
          try {
            const call = async (source: string) =>
              (await client.callTool({ name: "execute", arguments: { source } })) as CallToolResult;
            const listed = await call("def main():\n  return todos.list_todos(limit=5)\n");
            assert.equal(listed.isError, undefined, JSON.stringify(listed.content));
            // The list's own fields, `$schema` among them (todo-api's list body declares it).
            const empty = (listed.structuredContent as { result: Record<string, unknown> }).result;
            assert.deepEqual(empty.todos, []);
            assert.match(String(empty.$schema), /\/schemas\/ListTodosOutputBody\.json$/);
            const made = await call(
              'def main():\n  todos.create_todo(title="from dev")\n  return todos.list_todos(limit=5)\n',
            );
            assert.equal(made.isError, undefined, JSON.stringify(made.content));
            const result = (made.structuredContent as { result: { todos: { title: string }[] } })
              .result;
            assert.deepEqual(result.todos.map((x) => x.title), ["from dev"]);
          } finally {
            await client.close();
          }

          // services/mcp-server/README.md: the token and the pinned Inspector, one shell script.
          const inspector = await markedBlock("services/mcp-server/README.md", "TOKEN=$(curl");
          const listed = await runCommand(inspector.text, {}, dir);
          assert.equal(listed.code, 0, listed.stderr);
          assert.deepEqual(
            JSON.parse(listed.stdout).tools.map((x: { name: string }) => x.name).sort(),
            ["describe_api", "execute", "search_api"],
          );

          // services/mcp-server/README.md's client configurations give the todos.* they describe.
          const readme = "services/mcp-server/README.md";
          const [config] = clientConfigBlocks(
            readme,
            await Deno.readTextFile(`${WORKTREE}${readme}`),
          );
          assert.deepEqual(config.mark, { kind: "tested-by", path: "deploy/dev_test.ts" });
          const mcpKey = (await Deno.readTextFile(`${dir}/${MCP_KEY_FILE}`)).trim();
          const server = JSON.parse(config.text).mcpServers.capabilities;
          const fromJson = await todoCapabilitiesOverStdio({
            command: server.command,
            args: server.args.map((a: string) => a.replace(/^\/path\/to\/repo\//, `${dir}/`)),
            env: Object.fromEntries(
              Object.entries(server.env as Record<string, string>).map((
                [k, v],
              ) => [k, v === "..." ? mcpKey : v]),
            ),
            cwd: dir,
          });
          const todos = ["todos.complete_todo", "todos.create_todo", "todos.get_todo"];
          assert.deepEqual(todos.filter((n) => !fromJson.includes(n)), [], fromJson.join(" "));
          // Claude Code's: the server command after `--`, with the `--env` it sets, from the root.
          const claude = await markedBlock(readme, "claude mcp add capabilities");
          const [head, command] = claude.commands[0].split(" -- ");
          const envs = [...head.matchAll(/--env (\w+=(?:"[^"]*"|\S+))/g)].map((m) => m[1]);
          assert.deepEqual(envs.map((e) => e.split("=")[0]), ["MCP_TODO_API_KEY"]);
          const fromClaude = await todoCapabilitiesOverStdio({
            command: "bash",
            args: ["-c", `${envs.map((e) => `export ${e}`).join("; ")}; exec ${command}`],
            cwd: dir,
          });
          assert.deepEqual(todos.filter((n) => !fromClaude.includes(n)), [], fromClaude.join(" "));

          // The HTML pages' icon request answers, cacheable (todo-api's /docs, mock-oidc).
          for (const base of ["http://127.0.0.1:8081", "http://127.0.0.1:8080"]) {
            const icon = await fetch(`${base}/favicon.ico`);
            await icon.body?.cancel();
            assert.ok(icon.status === 200 || icon.status === 204, `${base}: ${icon.status}`);
            assert.equal(icon.headers.get("cache-control"), "public, max-age=86400");
          }
        } finally {
          dev.interrupt();
        }
        const status = await dev.status;
        await dev.drained;
        const out = dev.lines.join("\n");
        // Every service's exit line first (the tail alone may not show which one failed dev).
        const exits = dev.lines.filter((l) => / exited with code \d+$/.test(l)).join("\n");
        assert.equal(status.code, 0, `${exits}\n---\n${out.slice(-3000)}`);
        for (const svc of SERVICES) {
          assert.match(out, new RegExp(`^${svc.name} exited with code 0$`, "m"));
        }
        assertPortsFree();
      });

      await t.step(
        "README blocks on the dev ports: image-proxy's dev (installed, then offline), mcp-server's Run it",
        async () => {
          const install = await runCommand("deno install --frozen", {}, dir);
          assert.equal(install.code, 0, install.stderr);
          const proxy = await markedBlock("README.md", "deno task --cwd services/image-proxy dev");
          const emptyCache = await Deno.makeTempDir({ prefix: "dev_test_deno_dir_" });
          try {
            const offline = {
              NPM_CONFIG_REGISTRY: "http://127.0.0.1:1/",
              DENO_DIR: emptyCache,
              DENO_NO_UPDATE_CHECK: "1",
            };
            const [index] = await runBlock(proxy, {
              cwd: dir,
              serve: 1,
              ready: "server_listening",
              env: offline,
            });
            assert.ok(JSON.parse(index.stdout).index, index.stdout);
          } finally {
            await Deno.remove(emptyCache, { recursive: true }).catch(() => {});
          }
          assertPortsFree();
          const run = await markedBlock(
            "services/mcp-server/README.md",
            "deno run --allow-net --allow-read --allow-env=MCP_* services/mcp-server/main.ts --subject",
          );
          assert.equal(run.commands.length, 3);
          const [stdio, help] = await runBlock(run, {
            cwd: dir,
            serve: 2,
            ready: '"server_listening"',
          });
          assert.match(stdio.stderr, /serving MCP on stdio/);
          assert.match(help.stdout, /--transport/);
          assertPortsFree();
        },
      );

      await t.step("a service dying at start stops the others and fails dev", async () => {
        const taken = Deno.listen({ hostname: "127.0.0.1", port: 8081 });
        let dev: Dev | undefined;
        try {
          dev = startDev(dir, command);
          const status = await dev.status;
          await dev.drained;
          const out = dev.lines.join("\n");
          assert.notEqual(status.code, 0, out.slice(-3000));
          // The key made by the first run is still active: reused, not one more.
          assert.match(
            out,
            /^dev: mcp-server's todos\.\* use todo-api key \S+ \(subject mcp-demo, reused;/m,
          );
          assert.match(out, /^dev: todo-api admin key \S+ \(subject dev-admin, reused;/m);
          const exits = dev.lines.filter((l) => / exited with code \d+$/.test(l));
          assert.match(exits[0], /^todo-api exited with code [1-9]\d*$/, out.slice(-3000));
          assert.equal(status.code, Number(/\d+$/.exec(exits[0])![0]));
          assert.deepEqual(
            exits.slice(1).map((l) => l.replace(/ exited with code \d+$/, "")).sort(),
            SERVICES.map((s) => s.name).filter((n) => n !== "todo-api").sort(),
          );
          assert.match(out, /^todo-api +\| .*Cannot listen on 127\.0\.0\.1:8081/m);
        } finally {
          taken.close();
        }
        assertPortsFree();
      });
    } finally {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
