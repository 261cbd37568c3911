/**
 * mock-oidc as shipped: the permission flags of `deploy/services.ts`, its JSON configuration
 * through `JSON_CONFIG_PATH`, ready on /healthz and /readyz; a listener that cannot start is one
 * line naming the setting to change.
 */
import assert from "node:assert/strict";
import { runShipped, startShipped, takenPort } from "../_shipped.ts";

const LISTEN = ["--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"];

async function withConfig(body: (path: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "mock_oidc_shipped_" });
  try {
    const path = `${dir}/config.json`;
    await Deno.writeTextFile(
      path,
      JSON.stringify({
        tokenCallbacks: [{
          issuerId: "shipped",
          tokenExpiry: 120,
          requestMappings: [{
            requestParam: "grant_type",
            match: "*",
            claims: { sub: "alice", aud: ["todo"] },
          }],
        }],
      }),
    );
    await body(path);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("mock-oidc as shipped reads JSON_CONFIG_PATH and gets ready", async () => {
  await withConfig(async (path) => {
    const svc = await startShipped("mock-oidc", {
      args: LISTEN,
      env: { JSON_CONFIG_PATH: path },
      listeners: ["api", "metrics"],
    });
    try {
      const ready = await fetch(`${svc.url}/readyz`);
      assert.equal(ready.status, 200, await ready.text());
      const res = await fetch(`${svc.url}/shipped/token`, {
        method: "POST",
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: "c",
          client_secret: "s",
        }),
      });
      assert.equal(res.status, 200);
      const { access_token: token } = await res.json();
      const claims = JSON.parse(new TextDecoder().decode(
        Uint8Array.fromBase64(token.split(".")[1], { alphabet: "base64url" }),
      ));
      assert.equal(claims.sub, "alice"); // the file's callback, not the default subject
      assert.equal(claims.aud, "todo");
      assert.equal((await fetch(`${svc.urls.metrics}/metrics`)).status, 200);
    } finally {
      assert.equal(await svc.stop(), 0, svc.output());
    }
  });
});

Deno.test("mock-oidc as shipped: an address in use names the setting to change", async (t) => {
  const cases: [string, string, string, string[]][] = [
    ["api", "--addr", "MOCK_OIDC_ADDR", ["--metrics-addr", "127.0.0.1:0"]],
    ["metrics", "--metrics-addr", "MOCK_OIDC_METRICS_ADDR", ["--addr", "127.0.0.1:0"]],
    ["control", "--control-addr", "MOCK_OIDC_CONTROL_ADDR", LISTEN],
  ];
  for (const [listener, flag, variable, others] of cases) {
    await t.step(listener, async () => {
      const taken = takenPort();
      try {
        const out = await runShipped("mock-oidc", { args: [...others, flag, taken.addr] });
        assert.equal(
          out.stderr,
          `mock-oidc: Cannot listen on ${taken.addr} (${listener}): the address is already in ` +
            `use (change ${flag} / ${variable})\n`,
        );
        assert.equal(out.code, 2);
      } finally {
        taken.close();
      }
    });
  }
});
