import assert from "node:assert/strict";
import { control, startMock } from "./_test_support.ts";
import { runShipped } from "../_shipped.ts";

Deno.test("--control-token gates every /_mock route with 401, flag over MOCK_OIDC_CONTROL_TOKEN", async () => {
  const mock = await startMock({
    args: ["--control-token", "from-flag"],
    env: { MOCK_OIDC_CONTROL_TOKEN: "from-env" },
  });
  try {
    for (
      const [path, method] of [["/_mock/clock", "GET"], ["/_mock/reset", "POST"], [
        "/_mock/nope",
        "GET",
      ]]
    ) {
      const missing = await control(mock.url, method, path);
      assert.equal(missing.status, 401, path);
      assert.equal(missing.headers.get("content-type"), "application/problem+json");
      assert.equal(missing.headers.get("x-mock-oidc"), "testing-only");
    }
    const env = await control(mock.url, "GET", "/_mock/clock", undefined, {
      "x-mock-control-token": "from-env",
    });
    assert.equal(env.status, 401);
    const ok = await control(mock.url, "GET", "/_mock/clock", undefined, {
      "x-mock-control-token": "from-flag",
    });
    assert.equal(ok.status, 200);
    // Protocol and operational routes need no credential.
    const jwks = await fetch(`${mock.url}/default/jwks`);
    assert.equal(jwks.status, 200);
    await jwks.body?.cancel();
  } finally {
    await mock.stop();
  }
});

Deno.test("MOCK_OIDC_CONTROL_TOKEN alone sets the gate", async () => {
  const mock = await startMock({ env: { MOCK_OIDC_CONTROL_TOKEN: "env-only" } });
  try {
    assert.equal((await control(mock.url, "GET", "/_mock/clock")).status, 401);
    const ok = await control(mock.url, "GET", "/_mock/clock", undefined, {
      "x-mock-control-token": "env-only",
    });
    assert.equal(ok.status, 200);
  } finally {
    await mock.stop();
  }
});

Deno.test("--control-enabled=false answers 404 on every /_mock route; protocol keeps working", async () => {
  for (
    const options of [{ args: ["--control-enabled=false"] }, {
      env: { MOCK_OIDC_CONTROL_ENABLED: "false" },
    }]
  ) {
    const mock = await startMock(options);
    try {
      for (const path of ["/_mock/clock", "/_mock/mint", "/_mock/requests/take", "/_mock/x"]) {
        const res = await control(mock.url, "POST", path, { issuer: "a" });
        assert.equal(res.status, 404, path);
      }
      const jwks = await fetch(`${mock.url}/default/jwks`);
      assert.equal(jwks.status, 200);
      await jwks.body?.cancel();
    } finally {
      await mock.stop();
    }
  }
});

Deno.test("--control-addr serves /_mock on its own listener and captures nothing", async () => {
  const mock = await startMock({
    args: ["--control-addr", "127.0.0.1:0"],
    listeners: ["api", "metrics", "control"],
  });
  try {
    const controlUrl = mock.urls.control;
    assert.notEqual(controlUrl, mock.url);
    assert.equal((await control(mock.url, "GET", "/_mock/clock")).status, 404);
    const clock = await control(controlUrl, "GET", "/_mock/clock");
    assert.equal(clock.status, 200);
    assert.equal(clock.headers.get("x-mock-oidc"), "testing-only");
    const token = await fetch(`${mock.url}/ded/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials&client_id=c&client_secret=s",
    });
    assert.equal(token.status, 200);
    await token.body?.cancel();
    assert.equal((await control(controlUrl, "GET", "/_mock/requests")).body.count, 0);
    const take = await control(controlUrl, "POST", "/_mock/requests/take", { timeoutMs: 50 });
    assert.equal(take.status, 404);
    // Mint on the control listener still issues tokens of the API issuers.
    const minted = await control(controlUrl, "POST", "/_mock/mint", { issuer: "ded" });
    assert.equal(minted.status, 200);
    assert.equal(minted.body.issuer, `${mock.url}/ded`);
    const userinfo = await fetch(`${mock.url}/ded/userinfo`, {
      headers: { authorization: `Bearer ${minted.body.token}` },
    });
    assert.equal(userinfo.status, 200);
    await userinfo.body?.cancel();
  } finally {
    await mock.stop();
  }
});

async function startupFailure(args: string[]): Promise<{ code: number; output: string }> {
  const out = await runShipped("mock-oidc", { args, env: { JSON_CONFIG: "{}" } });
  return { code: out.code, output: out.stdout + out.stderr };
}

Deno.test("--control-addr equal to --addr or --metrics-addr is a startup error", async () => {
  const same = await startupFailure([
    "--addr",
    "127.0.0.1:18931",
    "--control-addr",
    "127.0.0.1:18931",
  ]);
  assert.notEqual(same.code, 0);
  assert.match(same.output, /control-addr/);
  const metrics = await startupFailure([
    "--addr",
    "127.0.0.1:0",
    "--metrics-addr",
    "127.0.0.1:18932",
    "--control-addr",
    "127.0.0.1:18932",
  ]);
  assert.notEqual(metrics.code, 0);
  assert.match(metrics.output, /control-addr/);
});
