/**
 * mcp-server as shipped: the permission flags of `deploy/services.ts`, the arguments its
 * Containerfile's CMD gives it (listen address moved to a free loopback port), its issuer and
 * policy file through MCP_* variables; ready on /healthz, serving MCP to a real SDK client with a
 * token from mock-oidc. A listener that cannot start is one line naming the setting to change.
 */
import assert from "node:assert/strict";
import { ROOT, runShipped, startShipped, takenPort } from "../_shipped.ts";
import { connectHttp } from "./_test_support.ts";

/** The Containerfile's CMD, e.g. `["--transport", "http", "--addr", "0.0.0.0:8090"]`. */
async function containerCmd(): Promise<string[]> {
  const file = await Deno.readTextFile(`${ROOT}deploy/mcp-server/Containerfile`);
  const cmd = /^CMD (\[.*\])$/m.exec(file);
  assert.ok(cmd, "the Containerfile has a CMD");
  return JSON.parse(cmd[1]);
}

/** The CMD with `--addr` moved to `addr` (the container's 0.0.0.0:8090 may be taken here). */
function withAddr(cmd: string[], addr: string): string[] {
  const at = cmd.indexOf("--addr");
  assert.ok(at >= 0, "the CMD sets --addr");
  return cmd.map((a, i) => i === at + 1 ? addr : a);
}

Deno.test("mcp-server as shipped serves MCP with its policy file and issuer", async () => {
  const dir = await Deno.makeTempDir({ prefix: "mcp_shipped_" });
  const oidc = await startShipped("mock-oidc", {
    args: ["--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"],
    listeners: ["api", "metrics"],
  });
  try {
    const policy = `${dir}/policy.json`;
    await Deno.writeTextFile(
      policy,
      JSON.stringify({ rules: [{ subjects: ["*"], capabilities: ["time.*"] }] }),
    );
    const issuer = `${oidc.url}/shipped`;
    const svc = await startShipped("mcp-server", {
      args: withAddr(await containerCmd(), "127.0.0.1:0"),
      env: { MCP_ISSUER: issuer, MCP_POLICY: policy },
    });
    try {
      const res = await fetch(`${issuer}/token`, {
        method: "POST",
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: "shipped-client",
          scope: "mcp",
          resource: `${svc.url}/mcp`,
        }),
      });
      const { access_token: token } = await res.json();
      const session = await connectHttp(`${svc.url}/mcp`, token);
      try {
        const tools = await session.client.listTools();
        assert.ok(tools.tools.length > 0);
        assert.match(svc.output(), /"msg":"authorization policy loaded".*policy\.json/);
      } finally {
        await session.close();
      }
    } finally {
      assert.equal(await svc.stop(), 0, svc.output());
    }
  } finally {
    await oidc.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("mcp-server as shipped: without an issuer, one line names the setting", async () => {
  const out = await runShipped("mcp-server", {
    args: withAddr(await containerCmd(), "127.0.0.1:0"),
  });
  assert.equal(
    out.stderr.split("\n").filter((l) => !l.startsWith("{")).join("\n"),
    "mcp-server: Cannot start the http transport: the OIDC issuer is required (set --issuer / " +
      "MCP_ISSUER)\n",
  );
  assert.equal(out.code, 2);
});

Deno.test("mcp-server as shipped: an address in use names the setting to change", async (t) => {
  const cmd = await containerCmd();
  const env = { MCP_ISSUER: "http://127.0.0.1:1/none" };
  await t.step("api", async () => {
    const taken = takenPort();
    try {
      const out = await runShipped("mcp-server", { args: withAddr(cmd, taken.addr), env });
      assert.equal(
        out.stderr.split("\n").filter((l) => !l.startsWith("{")).join("\n"),
        `mcp-server: Cannot listen on ${taken.addr} (api): the address is already in use ` +
          `(change --addr / MCP_ADDR)\n`,
      );
      assert.equal(out.code, 2);
    } finally {
      taken.close();
    }
  });
  await t.step("metrics", async () => {
    const taken = takenPort();
    try {
      const out = await runShipped("mcp-server", {
        args: withAddr(cmd, "127.0.0.1:0"),
        env: { ...env, MCP_METRICS_ADDR: taken.addr },
      });
      assert.equal(
        out.stderr.split("\n").filter((l) => !l.startsWith("{")).join("\n"),
        `mcp-server: Cannot listen on ${taken.addr} (metrics): the address is already in use ` +
          `(change --metrics-addr / MCP_METRICS_ADDR)\n`,
      );
      assert.equal(out.code, 2);
    } finally {
      taken.close();
    }
  });
});
