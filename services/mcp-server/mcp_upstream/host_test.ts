import assert from "node:assert/strict";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { z } from "zod";
import { CapabilityRegistry } from "../capabilities/registry.ts";
import { ApiError } from "../openapi/host.ts";
import { AgentError } from "../tools/agent_error.ts";
import { connect, errorOf } from "../tools/_test_support.ts";
import { registerUpstreams, type UpstreamOptions, upstreamSpecs } from "./host.ts";

/** A stateless MCP server on loopback with the tools the tests need. */
function upstream(options: { extraTools?: number; hang?: Promise<void> } = {}) {
  const seen: { authorization: string | null; bodyBytes: number[] } = {
    authorization: null,
    bodyBytes: [],
  };
  const build = () => {
    const server = new McpServer({ name: "fake", version: "1" });
    server.registerTool(
      "echo-Text",
      {
        description: "Echo a message",
        inputSchema: { message: z.string(), "times-n": z.number().int().optional() },
      },
      ({ message }: { message: string }) => ({
        content: [{ type: "text", text: message }, { type: "text", text: "!" }],
      }),
    );
    server.registerTool(
      "add",
      {
        title: "Add two numbers",
        inputSchema: { a: z.number(), b: z.number() },
        outputSchema: { sum: z.number(), note: z.string().optional() },
        annotations: { readOnlyHint: true },
      },
      ({ a, b }: { a: number; b: number }) => ({
        content: [{ type: "text", text: String(a + b) }],
        structuredContent: { sum: a + b },
      }),
    );
    server.registerTool("fail", { inputSchema: {} }, () => ({
      isError: true,
      content: [{ type: "text", text: "upstream says no\u0007" }],
    }));
    server.registerTool(
      "big",
      { inputSchema: { n: z.number().int() } },
      ({ n }: { n: number }) => ({
        content: [{ type: "text", text: "x".repeat(n) }],
      }),
    );
    server.registerTool("hang", { inputSchema: {} }, async () => {
      await options.hang;
      return { content: [{ type: "text", text: "late" }] };
    });
    server.registerTool("free", { inputSchema: { any: z.unknown() } }, () => ({ content: [] }));
    for (let i = 0; i < (options.extraTools ?? 0); i++) {
      server.registerTool(`extra_${i}`, { inputSchema: {} }, () => ({ content: [] }));
    }
    return server;
  };
  const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    seen.authorization = req.headers.get("authorization");
    // stateless: no server-initiated stream (the body is read whole below, to count its bytes)
    if (req.method !== "POST") {
      return new Response(null, { status: 405, headers: { allow: "POST" } });
    }
    const server = build();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    const res = await transport.handleRequest(req);
    const body = await res.arrayBuffer();
    seen.bodyBytes.push(body.byteLength);
    return new Response(body, { status: res.status, headers: res.headers });
  });
  return { url: `http://127.0.0.1:${http.addr.port}/mcp`, seen, close: () => http.shutdown() };
}

const OPTIONS: UpstreamOptions = {
  env: (name) => ({ MCP_UP_TOKEN: "s3cret" })[name],
  timeoutMs: 5_000,
  maxResponseBytes: 1 << 20,
  maxTools: 256,
};

const ctx = () => ({ subject: { id: "a" }, signal: new AbortController().signal });

Deno.test("each upstream tool becomes NAME.<tool>, schemas mapped, calls made with the credential", async () => {
  const up = upstream();
  try {
    const registry = new CapabilityRegistry();
    const [report] = await registerUpstreams(
      registry,
      upstreamSpecs([`up=${up.url}`], ["up=bearer:MCP_UP_TOKEN"]),
      OPTIONS,
    );
    assert.deepEqual(report.enabled.sort(), [
      "up.add",
      "up.big",
      "up.echo_text",
      "up.fail",
      "up.hang",
    ]);
    assert.deepEqual(report.disabled.map((d) => d.name), ["up.free"]);
    assert.equal(up.seen.authorization, "Bearer s3cret");
    const echo = registry.get("up.echo_text")!;
    assert.equal(echo.signature, "up.echo_text(*, message: str, times_n: int | None)");
    assert.deepEqual(echo.output.map((f) => f.name), ["text"]);
    assert.equal(echo.readOnly, false);
    assert.equal(echo.openWorld, true);
    assert.deepEqual(await echo.handler({ message: "hi", times_n: 2 }, ctx()), { text: "hi\n!" });
    const add = registry.get("up.add")!;
    assert.equal(add.summary, "Add two numbers");
    assert.equal(add.readOnly, true);
    assert.deepEqual(add.output.map((f) => [f.name, f.type.kind]), [["sum", "float"], [
      "note",
      "ptr",
    ]]);
    assert.deepEqual(await add.handler({ a: 1, b: 2.5 }, ctx()), { sum: 3.5 });
    await assert.rejects(
      async () => await registry.get("up.fail")!.handler({}, ctx()),
      (err: Error) => err instanceof AgentError && err.message === "upstream says no\u0007",
    );
  } finally {
    await up.close();
  }
});

Deno.test("--mcp-max-tools: at, below and above the number of tools", async () => {
  const up = upstream({ extraTools: 2 }); // 8 tools, the 6th (free) unexpressible
  try {
    for (const [maxTools, enabled] of [[8, 7], [9, 7], [7, 6], [3, 3]] as const) {
      const registry = new CapabilityRegistry();
      const [report] = await registerUpstreams(registry, upstreamSpecs([`up=${up.url}`], []), {
        ...OPTIONS,
        maxTools,
      });
      assert.equal(report.enabled.length, enabled, `maxTools ${maxTools}`);
      const beyond = report.disabled.filter((d) => d.reason.startsWith("beyond"));
      assert.equal(beyond.length, Math.max(0, 8 - maxTools), `maxTools ${maxTools}`);
      if (beyond.length) assert.equal(beyond[0].reason, `beyond --mcp-max-tools (${maxTools})`);
    }
  } finally {
    await up.close();
  }
});

Deno.test("--mcp-max-response-bytes: at, below and above the size of an answer", async () => {
  const up = upstream();
  try {
    const registry = new CapabilityRegistry();
    await registerUpstreams(registry, upstreamSpecs([`up=${up.url}`], []), OPTIONS);
    up.seen.bodyBytes.length = 0;
    await registry.get("up.big")!.handler({ n: 5000 }, ctx());
    const size = Math.max(...up.seen.bodyBytes);
    assert.ok(size > 5000);
    const bounded = async (maxResponseBytes: number) => {
      const r = new CapabilityRegistry();
      await registerUpstreams(r, upstreamSpecs([`up=${up.url}`], []), {
        ...OPTIONS,
        maxResponseBytes,
      });
      return r.get("up.big")!.handler({ n: 5000 }, ctx());
    };
    assert.deepEqual(await bounded(size), { text: "x".repeat(5000) });
    assert.deepEqual(await bounded(size + 1), { text: "x".repeat(5000) });
    await assert.rejects(
      async () => await bounded(size - 1),
      (err: Error) =>
        err instanceof AgentError && err.message === `response larger than ${size - 1} bytes`,
    );
  } finally {
    await up.close();
  }
});

Deno.test("--mcp-timeout bounds a call; a request that goes away abandons it", async () => {
  let release = () => {};
  const hang = new Promise<void>((resolve) => release = resolve);
  const up = upstream({ hang });
  try {
    const registry = new CapabilityRegistry();
    await registerUpstreams(registry, upstreamSpecs([`up=${up.url}`], []), {
      ...OPTIONS,
      timeoutMs: 300,
    });
    await assert.rejects(
      async () => await registry.get("up.hang")!.handler({}, ctx()),
      (err: Error) => err instanceof AgentError && err.message === "no answer within 300 ms",
    );
    const aborted = new AbortController();
    const call = registry.get("up.hang")!.handler({}, {
      subject: { id: "a" },
      signal: aborted.signal,
    });
    aborted.abort();
    await assert.rejects(async () => await call, (err: Error) => !(err instanceof AgentError));
    // within the bound: an answer
    assert.deepEqual(await registry.get("up.echo_text")!.handler({ message: "m" }, ctx()), {
      text: "m\n!",
    });
  } finally {
    release();
    await up.close();
  }
});

Deno.test("an upstream that cannot be reached or goes away: start-up line, capability failed", async () => {
  const up = upstream();
  const registry = new CapabilityRegistry();
  await registerUpstreams(registry, upstreamSpecs([`up=${up.url}`], []), OPTIONS);
  await up.close();
  await assert.rejects(
    async () => await registry.get("up.add")!.handler({ a: 1, b: 1 }, ctx()),
    (err: Error) =>
      err instanceof AgentError && /^cannot reach the MCP server \(\w+\)$/.test(err.message),
  );
  await assert.rejects(
    () => registerUpstreams(new CapabilityRegistry(), upstreamSpecs([`up=${up.url}`], []), OPTIONS),
    (err: Error) =>
      err instanceof ApiError &&
      err.message.startsWith(
        `Cannot use MCP server "up": cannot list its tools at ${up.url}: cannot reach the MCP server (`,
      ),
  );
});

Deno.test("upstreamSpecs and --mcp-auth refuse what they cannot use, in one line", async () => {
  const bad: [string[], string[], string][] = [
    [["up"], [], 'Cannot read --mcp / MCP_MCP: want NAME=URL, got "up"'],
    [["json=http://h/mcp"], [], 'Cannot use MCP server "json": the name'],
    [["up=http://h/mcp", "up=http://h/mcp"], [], 'Cannot use MCP server "up": given twice'],
    [
      ["up=file:///etc/passwd"],
      [],
      'Cannot use MCP server "up": not an http(s) URL or stdio:COMMAND (--mcp / MCP_MCP)',
    ],
    [
      ["up=http://h/mcp"],
      ["other=bearer:MCP_X"],
      'Cannot use --mcp-auth for "other": no --mcp other=... (MCP_MCP_AUTH)',
    ],
  ];
  for (const [mcp, auth, want] of bad) {
    assert.throws(
      () => upstreamSpecs(mcp, auth),
      (err: Error) => err instanceof ApiError && err.message.startsWith(want),
      want,
    );
  }
  await assert.rejects(
    () =>
      registerUpstreams(
        new CapabilityRegistry(),
        upstreamSpecs(["up=http://127.0.0.1:9/mcp"], ["up=bearer:HOME"]),
        OPTIONS,
      ),
    (err: Error) =>
      err.message ===
        'Cannot use --mcp-auth for "up": the variable must be named MCP_<NAME> (got "HOME") (MCP_MCP_AUTH)',
  );
});

Deno.test("an upstream that hangs never keeps execute past --max-execution-time", async () => {
  let release = () => {};
  const hang = new Promise<void>((resolve) => release = resolve);
  const up = upstream({ hang });
  const registry = new CapabilityRegistry();
  await registerUpstreams(registry, upstreamSpecs([`up=${up.url}`], []), {
    ...OPTIONS,
    timeoutMs: 60_000, // far beyond the execution time
  });
  const c = await connect({ registry, limits: { maxExecutionMs: 400 } });
  try {
    const started = performance.now();
    const r = await c.call("execute", { source: "def main():\n  return up.hang()\n" });
    const elapsed = performance.now() - started;
    assert.equal(errorOf(r), "resource limit exceeded");
    assert.ok(elapsed < 400 + 1000 + 2000, `took ${elapsed} ms`); // time, watchdog grace, slack
  } finally {
    await c.close();
    release();
    await up.close();
  }
});

Deno.test("each connection ends its session at a stateful upstream (DELETE), calls and listing", async () => {
  const open = new Map<string, WebStandardStreamableHTTPServerTransport>();
  let opened = 0;
  let closed = 0;
  let closedFour = () => {};
  const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const id = req.headers.get("mcp-session-id");
    let transport = id ? open.get(id) : undefined;
    if (!transport) {
      if (id) return new Response(null, { status: 404 });
      const server = new McpServer({ name: "stateful", version: "1" });
      server.registerTool("ping", { inputSchema: {} }, () => ({
        content: [{ type: "text", text: "pong" }],
      }));
      transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (sid: string) => {
          opened++;
          open.set(sid, transport!);
        },
        onsessionclosed: (sid: string) => {
          closed++;
          open.delete(sid);
          if (closed === 4) closedFour();
        },
      });
      await server.connect(transport);
    }
    if (req.method === "GET") return new Response(null, { status: 405 });
    return await transport.handleRequest(req);
  });
  try {
    const url = `http://127.0.0.1:${http.addr.port}/mcp`;
    const registry = new CapabilityRegistry();
    await registerUpstreams(registry, upstreamSpecs([`st=${url}`], []), OPTIONS);
    const ended = new Promise<void>((resolve) => closedFour = resolve);
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(await registry.get("st.ping")!.handler({}, ctx()), { text: "pong" });
    }
    await ended; // the listing's session and each call's, ended (in the background)
    assert.equal(opened, 4);
    assert.equal(open.size, 0);
  } finally {
    await http.shutdown();
  }
});

const SDK = "npm:@modelcontextprotocol/sdk@1.32.2";

/**
 * A stdio MCP server: tools echo, big (n characters), hang, die (the process exits) and pid;
 * writes `up` and, per message, `wrote <bytes of its line>` to stderr, and one line longer than
 * the logged bound. Run outside the workspace's node_modules (`--no-config`, as the end-to-end
 * tests run npm packages): a process started in it would take its lock while services start.
 */
const FAKE_STDIO_SOURCE = `import process from "node:process";
import { Writable } from "node:stream";
import { McpServer } from "${SDK}/server/mcp.js";
import { StdioServerTransport } from "${SDK}/server/stdio.js";
import { z } from "npm:zod@4.6.7";

const server = new McpServer({ name: "fake-stdio", version: "1" });
server.registerTool(
  "echo",
  { inputSchema: { message: z.string() } },
  ({ message }: { message: string }) => ({
    content: [{ type: "text", text: message }],
  }),
);
server.registerTool("big", { inputSchema: { n: z.number().int() } }, ({ n }: { n: number }) => ({
  content: [{ type: "text", text: "x".repeat(n) }],
}));
server.registerTool("hang", { inputSchema: {} }, () => new Promise(() => {}));
server.registerTool("die", { inputSchema: {} }, () => Deno.exit(3));
server.registerTool("pid", { inputSchema: {} }, () => ({
  content: [{ type: "text", text: String(Deno.pid) }],
}));

const encoder = new TextEncoder();
const stderrLine = (text: string) => Deno.stderr.writeSync(encoder.encode(\`\${text}\\n\`));
const counting = new Writable({
  write(chunk, _encoding, done) {
    stderrLine(\`wrote \${encoder.encode(String(chunk)).byteLength - 1}\`);
    process.stdout.write(chunk, done);
  },
});
stderrLine("up");
stderrLine("y".repeat(3000));
await server.connect(new StdioServerTransport(process.stdin, counting));
`;

const fakeDir = await Deno.makeTempDir();
await Deno.writeTextFile(`${fakeDir}/stdio_server.ts`, FAKE_STDIO_SOURCE);
globalThis.addEventListener("unload", () => Deno.removeSync(fakeDir, { recursive: true }));

/** `--mcp NAME=stdio:...` of the fake stdio server. */
const FAKE_STDIO = `stdio:${Deno.execPath()} run --no-config --node-modules-dir=none --no-lock ` +
  `--allow-env --allow-read ${fakeDir}/stdio_server.ts`;

/** Registers the fake stdio server as `io`; its stderr lines collected, its stop returned. */
async function stdioUpstream(options: Partial<UpstreamOptions> = {}) {
  const stderr: string[] = [];
  const stops: (() => Promise<void>)[] = [];
  const registry = new CapabilityRegistry();
  const [report] = await registerUpstreams(registry, upstreamSpecs([`io=${FAKE_STDIO}`], []), {
    ...OPTIONS,
    ...options,
    log: (name, line) => stderr.push(`${name}: ${line}`),
    stops,
  });
  const call = (tool: string, args: Record<string, unknown> = {}) =>
    registry.get(`io.${tool}`)!.handler(args, ctx());
  return { registry, report, stderr, call, stop: () => Promise.all(stops.map((s) => s())) };
}

/** Whether process `pid` is running (Linux: /proc). */
async function running(pid: number): Promise<boolean> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`).catch(() => "");
  return stat !== "" && !/^\d+ \(.*\) Z/.test(stat); // a zombie has exited
}

Deno.test("stdio: one process, its tools called, its stderr logged, stopped at shutdown", async () => {
  const io = await stdioUpstream();
  try {
    assert.deepEqual(io.report.enabled.sort(), [
      "io.big",
      "io.die",
      "io.echo",
      "io.hang",
      "io.pid",
    ]);
    assert.match(io.registry.get("io.echo")!.description, /MCP: tool echo of stdio:\S+ run /);
    assert.deepEqual(await io.call("echo", { message: "hi" }), { text: "hi" });
    const { text: pid } = await io.call("pid") as { text: string };
    assert.deepEqual(await io.call("pid"), { text: pid }); // the same process
    assert.equal(await running(Number(pid)), true);
    assert.ok(io.stderr.includes("io: up"), io.stderr.join("\n"));
    // a stderr line is logged up to 1000 characters
    assert.ok(io.stderr.includes(`io: ${"y".repeat(1000)}`), io.stderr.join("\n"));
    assert.ok(io.stderr.every((line) => line.length <= "io: ".length + 1000));
    await io.stop();
    assert.equal(await running(Number(pid)), false);
    await assert.rejects(
      async () => await io.call("echo", { message: "after" }),
      (err: Error) => err instanceof AgentError && /^cannot reach the MCP server/.test(err.message),
    );
  } finally {
    await io.stop();
  }
});

Deno.test("stdio: a process that dies fails its call; the next call starts it again", async () => {
  const io = await stdioUpstream();
  try {
    const { text: first } = await io.call("pid") as { text: string };
    await assert.rejects(
      async () => await io.call("die"),
      (err: Error) =>
        err instanceof AgentError && /^cannot reach the MCP server \(\w+\)$/.test(err.message),
    );
    const { text: second } = await io.call("pid") as { text: string };
    assert.notEqual(second, first);
    assert.equal(await running(Number(first)), false);
  } finally {
    await io.stop();
  }
});

Deno.test("stdio: --mcp-timeout bounds a call to a process that hangs; others still answer", async () => {
  // the bound covers the process's start too (the listing): a Deno start, well within 3 s
  const io = await stdioUpstream({ timeoutMs: 3_000 });
  try {
    await assert.rejects(
      async () => await io.call("hang"),
      (err: Error) => err instanceof AgentError && err.message === "no answer within 3000 ms",
    );
    assert.deepEqual(await io.call("echo", { message: "m" }), { text: "m" });
  } finally {
    await io.stop();
  }
});

Deno.test("stdio: --mcp-max-response-bytes bounds a message line: at, below and above", async () => {
  const io = await stdioUpstream();
  let size;
  try {
    await io.call("big", { n: 5000 });
    size = Math.max(...io.stderr.map((l) => Number(/^io: wrote (\d+)$/.exec(l)?.[1] ?? 0)));
    assert.ok(size > 5000);
  } finally {
    await io.stop();
  }
  for (const [bound, fits] of [[size, true], [size + 1, true], [size - 1, false]] as const) {
    // the listing's answer is much smaller than the big one
    const bounded = await stdioUpstream({ maxResponseBytes: bound });
    try {
      if (fits) {
        assert.deepEqual(await bounded.call("big", { n: 5000 }), { text: "x".repeat(5000) });
      } else {
        await assert.rejects(
          async () => await bounded.call("big", { n: 5000 }),
          (err: Error) =>
            err instanceof AgentError && err.message === `response larger than ${bound} bytes`,
        );
        // the connection was closed with the line; the next call has a new process
        assert.deepEqual(await bounded.call("echo", { message: "ok" }), { text: "ok" });
      }
    } finally {
      await bounded.stop();
    }
  }
});

Deno.test("stdio: a process that hangs never keeps execute past --max-execution-time", async () => {
  const io = await stdioUpstream({ timeoutMs: 60_000 });
  const c = await connect({ registry: io.registry, limits: { maxExecutionMs: 400 } });
  try {
    const started = performance.now();
    const r = await c.call("execute", { source: "def main():\n  return io.hang()\n" });
    const elapsed = performance.now() - started;
    assert.equal(errorOf(r), "resource limit exceeded");
    assert.ok(elapsed < 400 + 1000 + 2000, `took ${elapsed} ms`); // time, watchdog grace, slack
  } finally {
    await c.close();
    await io.stop();
  }
});

Deno.test("stdio: what --mcp and --mcp-auth refuse, and a command that is not there", async () => {
  assert.throws(
    () => upstreamSpecs(["io=stdio:  "], []),
    (err: Error) =>
      err.message === 'Cannot use MCP server "io": no command after stdio: (--mcp / MCP_MCP)',
  );
  assert.throws(
    () => upstreamSpecs([`io=${FAKE_STDIO}`], ["io=bearer:MCP_UP_TOKEN"]),
    (err: Error) =>
      err.message ===
        'Cannot use --mcp-auth for "io": a stdio server takes no credentials (MCP_MCP_AUTH)',
  );
  assert.deepEqual(upstreamSpecs(["io=stdio:srv  --a 1 "], [])[0].command, ["srv", "--a", "1"]);
  await assert.rejects(
    () =>
      registerUpstreams(
        new CapabilityRegistry(),
        upstreamSpecs(["io=stdio:/nonexistent/mcp-server-x"], []),
        OPTIONS,
      ),
    (err: Error) =>
      err instanceof ApiError &&
      err.message ===
        'Cannot use MCP server "io": cannot list its tools at stdio:/nonexistent/mcp-server-x: ' +
          "cannot reach the MCP server (NotFound) (--mcp / MCP_MCP)",
  );
});
