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
      'Cannot use MCP server "up": not an http(s) URL (--mcp / MCP_MCP)',
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
