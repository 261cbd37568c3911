/**
 * `--mcp`: a real MCP server nobody here wrote, `@modelcontextprotocol/server-everything` from
 * npm (served on loopback by the harness below), exposed through mcp-server started in its
 * shipped form; the SDK client searches, describes and calls its tools from one `execute`
 * program together with an OpenAPI capability (a document file whose API the test serves) and
 * the demo host's.
 */
import assert from "node:assert/strict";
import { skipSuite } from "@svc/testing";
import { ROOT, runMcp, startHttpStack, startStdio } from "./_test_support.ts";

const EVERYTHING = "npm:@modelcontextprotocol/server-everything@2026.8.31";
const SDK = "npm:@modelcontextprotocol/sdk@1.32.2";

/**
 * The upstream's process: server-everything's own server factory, one server per request, on
 * stateless Streamable HTTP on loopback (its bundled express transport listens on every
 * interface). Run outside the workspace's node_modules (`--no-config`): a test fixture, not a
 * dependency of the code; prints `listening <url>`.
 */
const HARNESS = `
import { createServer } from "${EVERYTHING}/dist/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "${SDK}/server/webStandardStreamableHttp.js";
const http = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log("listening http://127.0.0.1:" + port + "/mcp"),
}, async (req) => {
  if (req.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST" } });
  const { server, cleanup } = createServer();
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(req);
  } finally {
    cleanup?.();
  }
});
await http.finished;
`;

/** Starts the upstream; resolves to its URL and a stop. */
async function startEverything(): Promise<{ url: string; stop(): Promise<void> }> {
  const dir = await Deno.makeTempDir();
  const harness = `${dir}/everything.ts`;
  await Deno.writeTextFile(harness, HARNESS);
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-config",
      "--node-modules-dir=none",
      "--no-lock",
      "--allow-net=127.0.0.1",
      "--allow-read",
      "--allow-env",
      harness,
    ],
    cwd: ROOT,
    stdout: "piped",
    stderr: "null",
    env: { NO_COLOR: "1" },
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!/listening (\S+)\n/.test(seen)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the upstream did not start: ${seen}`);
    seen += value;
  }
  const url = /listening (\S+)\n/.exec(seen)![1];
  return {
    url,
    async stop() {
      child.kill();
      await reader.cancel().catch(() => {});
      await child.status;
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** An OpenAPI API on loopback (`GET /double?n=`) and its document in a file. */
async function startDoubler(dir: string) {
  const api = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const n = Number(new URL(req.url).searchParams.get("n"));
    return Response.json({ value: n * 2 });
  });
  const doc = `${dir}/doubler.yaml`;
  await Deno.writeTextFile(
    doc,
    `openapi: 3.1.0
info: {title: doubler, version: "1"}
servers: [{url: "http://127.0.0.1:${api.addr.port}"}]
paths:
  /double:
    get:
      operationId: double
      parameters: [{name: n, in: query, required: true, schema: {type: number}}]
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {type: object, required: [value], properties: {value: {type: number}}}
`,
  );
  return { doc, stop: () => api.shutdown() };
}

Deno.test("--mcp: server-everything's tools searched, described and called from one program", async (t) => {
  const upstream = await startEverything();
  const dir = await Deno.makeTempDir();
  const doubler = await startDoubler(dir);
  try {
    await t.step("--list-capabilities lists them", async () => {
      const { code, stdout } = await runMcp(["--list-capabilities", "--mcp", `ev=${upstream.url}`]);
      assert.equal(code, 0);
      assert.match(stdout, /^ev\.get_sum\(\*, a: float, b: float\)$/m);
      assert.match(stdout, /^ev\.echo\(\*, message: str\)$/m);
    });
    const s = await startStdio([
      "--mcp",
      `ev=${upstream.url}`,
      "--openapi",
      `calc=${doubler.doc}`,
    ]);
    try {
      await t.step("search and describe", async () => {
        const found = await s.call("search_api", { query: "sum" });
        const names = (found.structuredContent as { results: { name: string }[] }).results
          .map((r) => r.name);
        assert.ok(names.includes("ev.get_sum"), names.join());
        const described = await s.call("describe_api", { name: "ev.echo" });
        const d = described.structuredContent as { output: unknown[]; description: string };
        assert.deepEqual(d.output, [{ name: "text", type: "str", required: true }]);
        assert.match(d.description, /MCP: tool echo of http:\/\/127\.0\.0\.1:\d+\/mcp/);
      });
      await t.step("one program calls the upstream, an OpenAPI API and the host", async () => {
        const ran = await s.call("execute", {
          source: "def main():\n" +
            "  total = ev.get_sum(a=2, b=3.5)['text']\n" +
            "  echoed = ev.echo(message='hello')['text']\n" +
            "  doubled = calc.double(n=5.5)['value']\n" +
            "  records.put(key='sum', value=total)\n" +
            "  return [echoed, records.get(key='sum')['record']['value'], doubled]\n",
        });
        const [echoed, stored, doubled] = (ran.structuredContent as { result: unknown[] }).result;
        assert.equal(echoed, "Echo: hello");
        assert.match(stored as string, /\b5\.5\b/);
        assert.equal(doubled, 11);
      });
      await t.step("an upstream isError result is capability failed: <its text>", async () => {
        const r = await s.call("execute", {
          source: "def main():\n  return ev.get_annotated_message(messageType='nope')\n",
        });
        assert.equal(r.isError, true);
        const text = (r.content[0] as { text: string }).text;
        assert.ok(
          text.startsWith(
            "capability failed: MCP error -32602: Input validation error: Invalid arguments " +
              "for tool get-annotated-message",
          ),
          text,
        );
      });
    } finally {
      await s.close();
    }
  } finally {
    await doubler.stop();
    await upstream.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * server-everything's own stdio entry (`mcp-server-everything stdio`), run outside the
 * workspace's node_modules as above; `marker` (an argument it ignores) finds its process.
 */
function everythingOverStdio(marker: string): string {
  return `stdio:${Deno.execPath()} run --no-config --node-modules-dir=none --no-lock ` +
    `--allow-read --allow-env ${EVERYTHING} stdio ${marker}`;
}

/** Pids of the running processes whose command line holds `marker` (Linux: /proc). */
async function processesWith(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const cmdline = await Deno.readTextFile(`/proc/${entry.name}/cmdline`).catch(() => "");
    const stat = await Deno.readTextFile(`/proc/${entry.name}/stat`).catch(() => "");
    // the child has it as an argument of its own; mcp-server, inside its --mcp value
    if (cmdline.includes(`\0${marker}`) && !/^\d+ \(.*\) Z/.test(stat)) {
      pids.push(Number(entry.name));
    }
  }
  return pids;
}

Deno.test("--mcp NAME=stdio:...: server-everything started as a command, with --allow-run", async (t) => {
  const marker = `mcp-e2e-${crypto.randomUUID()}`;
  const ev = `ev=${everythingOverStdio(marker)}`;
  const grant = [`--allow-run=${Deno.execPath()}`];
  const dir = await Deno.makeTempDir();
  const doubler = await startDoubler(dir);
  try {
    await t.step("without the run grant, start-up says so in one line", async () => {
      const { code, stderr } = await runMcp(["--list-capabilities", "--mcp", ev]);
      assert.equal(code, 2, stderr);
      assert.equal(
        stderr.trim(),
        `mcp-server: Cannot use MCP server "ev": it needs ` +
          `--allow-run=${Deno.execPath()} (--mcp / MCP_MCP)`,
      );
    });
    await t.step("--list-capabilities lists its tools, and stops it", async () => {
      const home = { HOME: Deno.env.get("HOME") ?? "/root" }; // the child's npm cache
      const { code, stdout, stderr } = await runMcp(
        ["--list-capabilities", "--mcp", ev],
        home,
        grant,
      );
      assert.equal(code, 0, stderr);
      assert.match(stdout, /^ev\.get_sum\(\*, a: float, b: float\)$/m);
      assert.deepEqual(await processesWith(marker), []);
    });
    const s = await startStdio(["--mcp", ev, "--openapi", `calc=${doubler.doc}`], {}, grant);
    try {
      await t.step("one program calls it and an OpenAPI API", async () => {
        const found = await s.call("search_api", { query: "sum" });
        const names = (found.structuredContent as { results: { name: string }[] }).results
          .map((r) => r.name);
        assert.ok(names.includes("ev.get_sum"), names.join());
        const described = await s.call("describe_api", { name: "ev.echo" });
        assert.match(
          (described.structuredContent as { description: string }).description,
          /MCP: tool echo of stdio:\S+ run /,
        );
        const ran = await s.call("execute", {
          source: "def main():\n" +
            "  total = ev.get_sum(a=2, b=3.5)['text']\n" +
            "  return [ev.echo(message='over stdio')['text'], total, calc.double(n=4)['value']]\n",
        });
        const [echoed, total, doubled] = (ran.structuredContent as { result: unknown[] }).result;
        assert.equal(echoed, "Echo: over stdio");
        assert.match(total as string, /\b5\.5\b/);
        assert.equal(doubled, 8);
      });
      await t.step("its stderr is a log record on our stderr, never on stdout", () => {
        // stdout carries JSON-RPC: the client above would have failed on a stray line
        const record = s.stderr().split("\n").find((l) => l.includes('"MCP server stderr"'));
        assert.ok(record, s.stderr());
        const parsed = JSON.parse(record);
        assert.equal(parsed.mcp, "ev");
        assert.equal(parsed.line, "Starting default (STDIO) server...");
      });
      assert.equal((await processesWith(marker)).length, 1);
    } finally {
      await s.close();
    }
    await t.step("it is stopped when mcp-server ends", async () => {
      // the client's close ends its stdin and waits for its exit; it stops its child first
      assert.deepEqual(await processesWith(marker), []);
    });
  } finally {
    await doubler.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

/** Why the Python MCP SDK's client cannot run here (`.ci/run` installs it), or undefined. */
function pythonSdkMissing(): string | undefined {
  try {
    const { code } = new Deno.Command("python3", {
      args: ["-c", "import mcp"],
      stdout: "null",
      stderr: "null",
    }).outputSync();
    return code === 0 ? undefined : "the Python MCP SDK (python3 -m pip install mcp)";
  } catch {
    return "python3 with the Python MCP SDK (python3 -m pip install mcp)";
  }
}

Deno.test({
  name: "the Python MCP SDK's client drives it over Streamable HTTP: --mcp and --openapi together",
  ignore: skipSuite({ module: import.meta.url, part: "Python SDK", needs: pythonSdkMissing() }),
  async fn() {
    const upstream = await startEverything();
    const dir = await Deno.makeTempDir();
    const doubler = await startDoubler(dir);
    try {
      const stack = await startHttpStack([
        "--mcp",
        `ev=${upstream.url}`,
        "--openapi",
        `calc=${doubler.doc}`,
      ]);
      try {
        const token = await stack.token("python-client");
        const child = new Deno.Command("python3", {
          args: [new URL("./python_client.py", import.meta.url).pathname, stack.mcpUrl],
          env: { MCP_TOKEN: token },
          stdin: "piped",
          stdout: "piped",
          stderr: "piped",
        }).spawn();
        const writer = child.stdin.getWriter();
        await writer.write(
          new TextEncoder().encode(
            "def main():\n" +
              "  total = ev.get_sum(a=2, b=3.5)['text']\n" +
              "  return {'sum': total, 'doubled': calc.double(n=21)['value']}\n",
          ),
        );
        await writer.close();
        const out = await child.output();
        const stderr = new TextDecoder().decode(out.stderr);
        assert.equal(out.code, 0, stderr);
        const got = JSON.parse(new TextDecoder().decode(out.stdout));
        assert.deepEqual(got.tools, ["describe_api", "execute", "search_api"]);
        assert.ok(got.found.includes("ev.get_sum"), got.found.join());
        assert.equal(got.signature, "ev.get_sum(*, a: float, b: float)");
        assert.equal(got.isError, false, got.text.join());
        assert.match(got.result.result.sum, /\b5\.5\b/);
        assert.equal(got.result.result.doubled, 42);
      } finally {
        await stack.stop();
      }
    } finally {
      await doubler.stop();
      await upstream.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
