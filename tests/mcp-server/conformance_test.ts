/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, its server scenarios)
 * against mcp-server over Streamable HTTP, started in its shipped form with mock-oidc as the
 * issuer. The suite sends no bearer token, so the test puts a loopback proxy in front that adds
 * one (a valid token for the resource, scope `mcp`) and passes everything else through as sent;
 * the server itself has no way around authentication.
 *
 * Scenarios that apply to a server with exactly three tools (search_api, describe_api, execute)
 * and nothing else are run; the rest need a feature or a fixture tool this server does not have:
 * see NOT_APPLICABLE.
 */
import assert from "node:assert/strict";
import { type ServiceProcess, startService } from "@svc/testing";
import { MAIN, PERMISSIONS, ROOT } from "./_test_support.ts";
import { startMock } from "../mock-oidc/_test_support.ts";

const SUITE = "npm:@modelcontextprotocol/conformance@0.1.16";

/** The server scenarios run, each expected to pass every check. */
const APPLICABLE = ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"];

/** Why each other server scenario of the suite does not apply here. */
const NOT_APPLICABLE: Record<string, string> = {
  "logging-set-level": "no logging capability: the server sends no log messages to clients",
  "completion-complete": "no completions capability (no prompts or resource templates)",
  "tools-call-simple-text": "calls the suite's fixture tool test_simple_text, not one of ours",
  "tools-call-image": "fixture tool test_image_content; our tools return JSON text only",
  "tools-call-audio": "fixture tool test_audio_content; our tools return JSON text only",
  "tools-call-embedded-resource": "fixture tool test_embedded_resource; no resources",
  "tools-call-mixed-content": "fixture tool test_multiple_content_types",
  "tools-call-with-logging": "fixture tool test_tool_with_logging; no log notifications",
  "tools-call-error": "fixture tool test_error_handling (our error results: tools/server_test.ts)",
  "tools-call-with-progress": "fixture tool test_tool_with_progress; no progress notifications",
  "tools-call-sampling": "fixture tool test_sampling; the server never asks the client to sample",
  "tools-call-elicitation": "fixture tool test_elicitation; the server never elicits",
  "json-schema-2020-12": "fixture tool json_schema_2020_12_tool",
  "elicitation-sep1034-defaults": "the server never elicits",
  "elicitation-sep1330-enums": "the server never elicits",
  "server-sse-polling": "stateless JSON responses: no SSE streams to poll or resume",
  "server-sse-multiple-streams": "stateless JSON responses: no SSE streams (GET /mcp is 405)",
  "resources-list": "no resources capability",
  "resources-read-text": "no resources capability",
  "resources-read-binary": "no resources capability",
  "resources-templates-read": "no resources capability",
  "resources-subscribe": "no resources capability",
  "resources-unsubscribe": "no resources capability",
  "prompts-list": "no prompts capability",
  "prompts-get-simple": "no prompts capability",
  "prompts-get-with-args": "no prompts capability",
  "prompts-get-embedded-resource": "no prompts capability",
  "prompts-get-with-image": "no prompts capability",
};

/** Runs the suite's CLI; resolves to its exit code and output. */
async function suite(args: string[]): Promise<{ code: number; out: string }> {
  const run = await new Deno.Command(Deno.execPath(), {
    // Outside the workspace's node_modules: a tool of the test, not a dependency of the code (in
    // the workspace's imports its dependencies made every later npm import of the services set
    // node_modules up again, with a warning on stderr).
    args: ["run", "--no-config", "--node-modules-dir=none", "--no-lock", "-A", SUITE, ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code: run.code, out: text.decode(run.stdout) + text.decode(run.stderr) };
}

Deno.test("every server scenario of the suite is run here or listed with the reason it does not apply", async () => {
  const { code, out } = await suite(["list", "--server"]);
  assert.equal(code, 0, out);
  const listed = [...out.matchAll(/^\s+- ([a-z0-9-]+) \[/gm)].map((m) => m[1]).sort();
  assert.ok(listed.length > 10, out);
  assert.deepEqual(listed, [...APPLICABLE, ...Object.keys(NOT_APPLICABLE)].sort());
});

Deno.test("the MCP conformance suite's applicable server scenarios pass over HTTP", async (t) => {
  const oidc = await startMock();
  const issuer = `${oidc.url}/mcp-oauth`;
  let server: ServiceProcess | undefined;
  let proxy: Deno.HttpServer<Deno.NetAddr> | undefined;
  try {
    server = await startService({
      entry: MAIN,
      cwd: ROOT,
      args: ["--transport", "http", "--addr", "127.0.0.1:0", "--issuer", issuer],
      env: { NO_COLOR: "1" },
      permissions: [...PERMISSIONS],
      timeoutMs: 30_000,
    });
    const upstream = server.url;
    const res = await fetch(`${issuer}/token`, {
      method: "POST",
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: "conformance",
        client_secret: "s",
        scope: "mcp",
        resource: `${upstream}/mcp`,
      }),
    });
    assert.equal(res.status, 200);
    const token = (await res.json()).access_token as string;
    // The loopback proxy: the request as sent (method, path, headers, Origin included), plus the
    // bearer token.
    proxy = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
      const url = new URL(req.url);
      const headers = new Headers(req.headers);
      headers.set("authorization", `Bearer ${token}`);
      headers.delete("host");
      const answer = await fetch(`${upstream}${url.pathname}${url.search}`, {
        method: req.method,
        headers,
        body: req.body,
        redirect: "manual",
      });
      return new Response(answer.body, { status: answer.status, headers: answer.headers });
    });
    const mcpUrl = `http://127.0.0.1:${proxy.addr.port}/mcp`;
    for (const scenario of APPLICABLE) {
      await t.step(scenario, async () => {
        const { code, out } = await suite(["server", "--url", mcpUrl, "--scenario", scenario]);
        assert.equal(code, 0, out);
        const passed = /Passed: (\d+)\/(\d+), 0 failed, 0 warnings/.exec(out);
        assert.ok(passed && passed[1] === passed[2] && Number(passed[1]) > 0, out);
      });
    }
  } finally {
    await proxy?.shutdown();
    await server?.stop();
    await oidc.stop();
  }
});
