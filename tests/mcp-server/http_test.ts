import assert from "node:assert/strict";
import { connectHttp, startHttpStack } from "./_test_support.ts";
import { waitUntil } from "@svc/testing";

Deno.test("http: bearer tokens from mock-oidc, 401 with RFC 9728 metadata, SDK client calls", async (t) => {
  const stack = await startHttpStack();
  try {
    await t.step("missing token: 401 naming the protected-resource metadata", async () => {
      const res = await fetch(stack.mcpUrl, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      assert.equal(res.status, 401);
      const challenge = res.headers.get("www-authenticate") ?? "";
      const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
      assert.equal(metadataUrl, `${stack.server.url}/.well-known/oauth-protected-resource`);
      assert.ok(!challenge.includes("invalid_token"));
      await res.body?.cancel();
      const meta = await (await fetch(metadataUrl!)).json();
      assert.deepEqual(meta.authorization_servers, [stack.issuer]);
      assert.equal(meta.resource, stack.mcpUrl);
      const suffixed =
        await (await fetch(`${stack.server.url}/.well-known/oauth-protected-resource/mcp`)).json();
      assert.deepEqual(suffixed, meta);
    });
    await t.step("invalid, foreign-audience and garbage tokens: 401 invalid_token", async () => {
      const wrongAudience = await stack.token("alice", "https://other.example/mcp");
      for (const token of ["not-a-jwt", wrongAudience, "a.b.c"]) {
        const res = await fetch(stack.mcpUrl, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            authorization: `Bearer ${token}`,
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
        });
        assert.equal(res.status, 401);
        assert.match(res.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
        await res.body?.cancel();
      }
    });
    await t.step("the SDK client over Streamable HTTP with a verified token", async () => {
      const session = await connectHttp(stack.mcpUrl, await stack.token("alice"));
      try {
        const { tools } = await session.client.listTools();
        assert.equal(tools.length, 3);
        const found = await session.call("search_api", { query: "clock" });
        assert.deepEqual(
          (found.structuredContent as { results: { name: string }[] }).results.map((r) => r.name),
          ["time.now"],
        );
        const ran = await session.call("execute", {
          source: "def main():\n  records.put(key='a', value='1')\n  return records.get(key='a')\n",
        });
        assert.deepEqual(ran.structuredContent, {
          result: { record: { key: "a", value: "1", labels: {} } },
        });
        const err = await session.call("describe_api", { name: "nope.x" });
        assert.deepEqual(err.content, [{ type: "text", text: "capability not found" }]);
      } finally {
        await session.close();
      }
    });
    await t.step("health, readiness and metrics", async () => {
      for (const path of ["/healthz", "/readyz"]) {
        const res = await fetch(`${stack.server.url}${path}`);
        assert.equal(res.status, 200);
        await res.body?.cancel();
      }
      const metrics = await (await fetch(`${stack.server.url}/metrics`)).text();
      assert.match(metrics, /http_requests_total\{method="POST",route="\/mcp",status="200"/);
      assert.match(metrics, /mcp_tool_calls_total\{tool="execute",outcome="ok"[^}]*\} 1/);
      assert.match(
        metrics,
        /mcp_tool_calls_total\{tool="describe_api",outcome="capability not found"/,
      );
    });
  } finally {
    await stack.stop();
  }
});

Deno.test("http: hostile input never yields a 5xx and the server stays alive", async () => {
  const stack = await startHttpStack();
  try {
    const token = await stack.token("mallory");
    const auth = {
      authorization: `Bearer ${token}`,
      accept: "application/json, text/event-stream",
    };
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    const cases: Array<[string, RequestInit & { path?: string }]> = [
      ["deep JSON", {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: deep,
      }],
      ["huge body", {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: "x".repeat(5 << 20),
      }],
      ["malformed JSON", {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: "{",
      }],
      ["control characters", {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: '{"jsonrpc":"2.0","id":1,"method":"\u0000\u0001"}',
      }],
      ["lowercase method", { method: "post", headers: auth, body: "{}" }],
      ["odd method", { method: "PURGE", headers: auth }],
      ["GET /mcp (no SSE stream)", { method: "GET", headers: auth }],
      ["DELETE /mcp", { method: "DELETE", headers: auth }],
      ["wrong accept", {
        method: "POST",
        headers: {
          authorization: auth.authorization,
          "content-type": "application/json",
          accept: "text/plain",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }],
      ["batch of garbage", {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: "[1,2,3]",
      }],
      ["unknown path", { method: "GET", path: "/nope" }],
      ["oversized bearer", {
        method: "POST",
        headers: { authorization: `Bearer ${"a".repeat(20_000)}` },
      }],
      ["bearer with control characters", {
        method: "POST",
        headers: { authorization: "Bearer a\tb" },
      }],
    ];
    for (const [what, init] of cases) {
      const res = await fetch(`${stack.server.url}${init.path ?? "/mcp"}`, init);
      assert.ok(res.status >= 400 && res.status < 500, `${what}: ${res.status}`);
      await res.body?.cancel();
    }
    // invalid Host header, via a raw connection
    const conn = await Deno.connect({
      hostname: "127.0.0.1",
      port: Number(new URL(stack.server.url).port),
    });
    await conn.write(
      new TextEncoder().encode("GET /healthz HTTP/1.1\r\nHost: \u0001bad host\r\n\r\n"),
    );
    const buf = new Uint8Array(256);
    const n = await conn.read(buf);
    conn.close();
    assert.match(new TextDecoder().decode(buf.subarray(0, n ?? 0)), /^HTTP\/1\.1 [24]\d\d/);
    // stalled body: headers promise more than arrives
    const stalled = await Deno.connect({
      hostname: "127.0.0.1",
      port: Number(new URL(stack.server.url).port),
    });
    // the Host of the token's resource URI, so the body is read, not refused with a 401
    await stalled.write(new TextEncoder().encode(
      `POST /mcp HTTP/1.1\r\nHost: ${new URL(stack.server.url).host}\r\n` +
        `Authorization: Bearer ${token}\r\n` +
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
        "Content-Length: 1000\r\n\r\n{",
    ));
    const health = await fetch(`${stack.server.url}/healthz`);
    assert.equal(health.status, 200);
    await health.body?.cancel();
    stalled.close();
    const session = await connectHttp(stack.mcpUrl, token);
    try {
      const r = await session.call("execute", { source: "def main():\n  return 'alive'\n" });
      assert.deepEqual(r.structuredContent, { result: "alive" });
    } finally {
      await session.close();
    }
  } finally {
    await stack.stop();
  }
});

Deno.test("http: a client that disconnects cancels its execute and frees the worker", async () => {
  const stack = await startHttpStack([
    "--max-execution-steps",
    "100000000000",
    "--max-execution-time",
    "60s",
    "--max-concurrent-executions",
    "1",
  ]);
  try {
    const token = await stack.token("alice");
    // One call first, so the issuer's keys are fetched and the worker is up: the client below
    // then leaves while its program runs, not while its token is being verified.
    const warm = await connectHttp(stack.mcpUrl, token);
    try {
      const r = await warm.call("execute", { source: "def main():\n  return 'warm'\n" });
      assert.deepEqual(r.structuredContent, { result: "warm" });
    } finally {
      await warm.close();
    }
    const spin = "def main():\n  x = 0\n  for i in range(1 << 40):\n    x += i\n  return x\n";
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "execute", arguments: { source: spin } },
    });
    const host = new URL(stack.server.url).host;
    const conn = await Deno.connect({
      hostname: "127.0.0.1",
      port: Number(new URL(stack.server.url).port),
    });
    // the Host a client of this URL sends: the resource URI, the token's aud, follows it
    await conn.write(new TextEncoder().encode(
      `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\n` +
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
        `Content-Length: ${new TextEncoder().encode(body).length}\r\n\r\n${body}`,
    ));
    // real clock: the program (it spins for seconds) is running when the client goes away
    await new Promise((r) => setTimeout(r, 1000)); // the program is running
    conn.close(); // the client goes away
    const canceled = /mcp_tool_calls_total\{tool="execute",outcome="context canceled"[^}]*\} 1/;
    // Counted well before the 60 s budget would end the program (30 s: a loaded machine).
    await waitUntil(
      async () => canceled.test(await (await fetch(`${stack.server.url}/metrics`)).text()),
      { what: "the execute to be counted as canceled", timeoutMs: 30_000, intervalMs: 100 },
    );
    const session = await connectHttp(stack.mcpUrl, token);
    try {
      const r = await session.call("execute", { source: "def main():\n  return 'free'\n" });
      assert.deepEqual(r.structuredContent, { result: "free" });
    } finally {
      await session.close();
    }
    // The abandoned request ended (logged as 499): it does not hold the shutdown for its grace.
    assert.equal(await stack.server.stop(), 0);
    const out = stack.server.output();
    assert.match(out, /"msg":"request"[^\n]*"path":"\/mcp"[^\n]*"status":499/, out.slice(-3000));
    assert.doesNotMatch(out, /shutdown_forced|grace period over/, out.slice(-3000));
  } finally {
    await stack.stop();
  }
});

Deno.test("http: a foreign Origin gets 403 before anything else (DNS-rebinding protection)", async (t) => {
  const stack = await startHttpStack(["--allowed-origins", "https://console.example"]);
  try {
    const token = await stack.token("alice");
    const post = (headers: Record<string, string>) =>
      fetch(stack.mcpUrl, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${token}`,
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
    await t.step("a rebinding page's origin (Host is the attacker's name too): 403", async () => {
      for (
        const origin of [
          "http://attacker.example:8090",
          "https://console.example.evil", // a suffix of an allowed one is another origin
          "null",
        ]
      ) {
        const res = await post({ origin });
        assert.equal(res.status, 403, origin);
        assert.deepEqual(await res.json(), {
          jsonrpc: "2.0",
          error: { code: -32000, message: "Forbidden: Origin not allowed" },
          id: null,
        });
      }
    });
    await t.step("no Origin, loopback origins and listed ones are served", async () => {
      const port = new URL(stack.mcpUrl).port;
      for (
        const headers of [
          {} as Record<string, string>,
          { origin: `http://127.0.0.1:${port}` },
          { origin: "http://localhost:6274" }, // the MCP Inspector's own page
          { origin: "https://console.example" },
        ]
      ) {
        const res = await post(headers);
        assert.equal(res.status, 200, JSON.stringify(headers));
        assert.equal((await res.json()).result.tools.length, 3);
      }
    });
    await t.step("a browser page of an admitted origin gets CORS; any other does not", async () => {
      for (const origin of ["http://localhost:6274", "https://console.example"]) {
        const preflight = await fetch(stack.mcpUrl, {
          method: "OPTIONS",
          headers: {
            origin,
            "access-control-request-method": "POST",
            "access-control-request-headers": "authorization, content-type, mcp-protocol-version",
          },
        });
        await preflight.body?.cancel();
        assert.equal(preflight.status, 204, origin);
        assert.equal(preflight.headers.get("access-control-allow-origin"), origin);
        assert.match(preflight.headers.get("access-control-allow-methods") ?? "", /POST/);
        assert.match(preflight.headers.get("access-control-allow-headers") ?? "", /authorization/);
        const res = await post({ origin });
        await res.body?.cancel();
        assert.equal(res.headers.get("access-control-allow-origin"), origin);
        assert.match(res.headers.get("access-control-expose-headers") ?? "", /WWW-Authenticate/);
        // the 401 a browser client starts from must be readable too
        const anonymous = await fetch(stack.mcpUrl, {
          method: "POST",
          headers: { origin, "content-type": "application/json" },
          body: "{}",
        });
        await anonymous.body?.cancel();
        assert.equal(anonymous.status, 401);
        assert.equal(anonymous.headers.get("access-control-allow-origin"), origin);
      }
      const foreign = await fetch(stack.mcpUrl, {
        method: "OPTIONS",
        headers: {
          origin: "http://attacker.example:8090",
          "access-control-request-method": "POST",
        },
      });
      await foreign.body?.cancel();
      assert.equal(foreign.headers.get("access-control-allow-origin"), null);
    });
  } finally {
    await stack.stop();
  }
});
