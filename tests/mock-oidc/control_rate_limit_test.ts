import assert from "node:assert/strict";
import { startMock } from "./_test_support.ts";

async function statuses(base: string, n: number, headers: Record<string, string> = {}) {
  const out: Response[] = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${base}/default/jwks`, { headers });
    await res.body?.cancel();
    out.push(res);
  }
  return out;
}

Deno.test("rate limiting is off by default", async () => {
  const mock = await startMock();
  try {
    const results = await statuses(mock.url, 30);
    assert.ok(results.every((r) => r.status === 200));
  } finally {
    await mock.stop();
  }
});

Deno.test("--rate-limit-* allow the burst, then answer 429 problems with Retry-After", async () => {
  const mock = await startMock({
    args: ["--rate-limit-enabled", "--rate-limit-rps", "0.5", "--rate-limit-burst", "3"],
  });
  try {
    const results = await statuses(mock.url, 4);
    assert.deepEqual(results.map((r) => r.status), [200, 200, 200, 429]);
    assert.equal(results[3].headers.get("retry-after"), "2");
    assert.equal(results[3].headers.get("content-type"), "application/problem+json");
    // Probes are never limited.
    const health = await fetch(`${mock.url}/healthz`);
    await health.body?.cancel();
    assert.equal(health.status, 200);
  } finally {
    await mock.stop();
  }
});

Deno.test("MOCK_OIDC_RATE_LIMIT_* and --trusted-proxy-header key the bucket per client IP", async () => {
  const mock = await startMock({
    env: {
      MOCK_OIDC_RATE_LIMIT_ENABLED: "true",
      MOCK_OIDC_RATE_LIMIT_RPS: "0.5",
      MOCK_OIDC_RATE_LIMIT_BURST: "1",
      MOCK_OIDC_TRUSTED_PROXY_HEADER: "X-Real-IP",
    },
  });
  try {
    const a = await statuses(mock.url, 2, { "x-real-ip": "10.0.0.1" });
    assert.deepEqual(a.map((r) => r.status), [200, 429]);
    const b = await statuses(mock.url, 1, { "x-real-ip": "10.0.0.2" });
    assert.deepEqual(b.map((r) => r.status), [200]);
  } finally {
    await mock.stop();
  }
});
