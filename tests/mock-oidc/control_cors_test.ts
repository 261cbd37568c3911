import assert from "node:assert/strict";
import { startMock } from "./_test_support.ts";

async function preflight(base: string, path: string, origin: string) {
  const res = await fetch(`${base}${path}`, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type,x-mock-control-token",
    },
  });
  await res.body?.cancel();
  return res;
}

Deno.test("CORS with an empty allowlist reflects any Origin with credentials, never *", async () => {
  const mock = await startMock();
  try {
    for (const path of ["/_mock/clock", "/default/token", "/default/jwks"]) {
      const pre = await preflight(mock.url, path, "https://app.example");
      assert.equal(pre.status, 204, path);
      if (path.startsWith("/_mock")) assert.equal(pre.headers.get("x-mock-oidc"), "testing-only");
      assert.equal(pre.headers.get("access-control-allow-origin"), "https://app.example");
      assert.equal(pre.headers.get("access-control-allow-credentials"), "true");
      assert.equal(pre.headers.get("access-control-allow-methods"), "POST, GET, OPTIONS");
      assert.equal(
        pre.headers.get("access-control-allow-headers"),
        "content-type,x-mock-control-token",
      );
    }
    const simple = await fetch(`${mock.url}/default/jwks`, {
      headers: { origin: "http://x.test" },
    });
    await simple.body?.cancel();
    assert.equal(simple.headers.get("access-control-allow-origin"), "http://x.test");
    assert.equal(simple.headers.get("access-control-allow-credentials"), "true");
    assert.equal(
      simple.headers.get("access-control-expose-headers"),
      "DPoP-Nonce, WWW-Authenticate",
    );
    // Error responses carry CORS headers too.
    const problem = await fetch(`${mock.url}/_mock/mint`, {
      method: "POST",
      headers: { origin: "http://x.test", "content-type": "application/json" },
      body: "{",
    });
    await problem.body?.cancel();
    assert.equal(problem.status, 400);
    assert.equal(problem.headers.get("access-control-allow-origin"), "http://x.test");
    const none = await fetch(`${mock.url}/default/jwks`);
    await none.body?.cancel();
    assert.notEqual(none.headers.get("access-control-allow-origin"), "*");
  } finally {
    await mock.stop();
  }
});

Deno.test("--cors-allowed-origins / MOCK_OIDC_CORS_ALLOWED_ORIGINS restrict reflection to the list", async () => {
  for (
    const options of [
      { args: ["--cors-allowed-origins", "https://a.example,https://b.example"] },
      { env: { MOCK_OIDC_CORS_ALLOWED_ORIGINS: "https://a.example,https://b.example" } },
    ]
  ) {
    const mock = await startMock(options);
    try {
      for (const origin of ["https://a.example", "https://b.example"]) {
        const res = await fetch(`${mock.url}/default/jwks`, { headers: { origin } });
        await res.body?.cancel();
        assert.equal(res.headers.get("access-control-allow-origin"), origin);
      }
      const denied = await fetch(`${mock.url}/default/jwks`, {
        headers: { origin: "https://evil.example" },
      });
      await denied.body?.cancel();
      assert.equal(denied.headers.get("access-control-allow-origin"), null);
      const pre = await preflight(mock.url, "/_mock/clock", "https://evil.example");
      assert.equal(pre.headers.get("access-control-allow-origin"), null);
    } finally {
      await mock.stop();
    }
  }
});
