import assert from "node:assert/strict";
import { createLogger } from "@svc/shared/log";
import { SettingsError } from "@svc/shared/settings";
import { serve } from "./serve.ts";
import { SETTINGS } from "./settings.ts";

const ISSUER = "http://127.0.0.1:1/issuer"; // never reached: no request here carries a token
const quiet = { logger: createLogger({ write: () => {} }), env: () => undefined };

function settingsOf(args: string[]) {
  return SETTINGS.resolve({ args, env: () => undefined }).values;
}

Deno.test("serve over HTTP: the app's routes on --addr, metrics there too, then a clean stop", async () => {
  const server = await serve(
    settingsOf(["--transport", "http", "--addr", "127.0.0.1:0", "--issuer", ISSUER]),
    quiet,
  );
  try {
    assert.deepEqual(Object.keys(server.urls), ["api"]);
    const health = await fetch(`${server.urls.api}/healthz`);
    assert.equal(health.status, 200);
    await health.body?.cancel();
    const metadata = await fetch(`${server.urls.api}/.well-known/oauth-protected-resource`);
    assert.deepEqual((await metadata.json()).authorization_servers, [ISSUER]);
    const metrics = await fetch(`${server.urls.api}/metrics`);
    assert.match(await metrics.text(), /mcp_tool_calls_total/);
  } finally {
    await server.shutdown();
  }
  await server.finished;
});

Deno.test("serve over HTTP with --metrics-addr: /metrics on its own listener only", async () => {
  const server = await serve(
    settingsOf([
      "--transport",
      "http",
      "--addr",
      "127.0.0.1:0",
      "--metrics-addr",
      "127.0.0.1:0",
      "--issuer",
      ISSUER,
    ]),
    quiet,
  );
  try {
    assert.deepEqual(Object.keys(server.urls).sort(), ["api", "metrics"]);
    const own = await fetch(`${server.urls.metrics}/metrics`);
    assert.match(await own.text(), /mcp_tool_calls_total/);
    const api = await fetch(`${server.urls.api}/metrics`);
    assert.equal(api.status, 404);
    await api.body?.cancel();
  } finally {
    await server.shutdown();
  }
});

Deno.test("serve refuses settings it cannot honour, naming the setting", async (t) => {
  await t.step("http without an issuer", async () => {
    await assert.rejects(
      serve(settingsOf(["--transport", "http", "--addr", "127.0.0.1:0"]), quiet),
      (err: unknown) => err instanceof SettingsError && err.key === "issuer",
    );
  });
  await t.step("an address in use names --addr", async () => {
    const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      await assert.rejects(
        serve(
          settingsOf([
            "--transport",
            "http",
            "--addr",
            `127.0.0.1:${taken.addr.port}`,
            "--issuer",
            ISSUER,
          ]),
          quiet,
        ),
        (err: unknown) => err instanceof SettingsError && /--addr/.test(err.message),
      );
    } finally {
      taken.close();
    }
  });
});
