import assert from "node:assert/strict";
import { control, startMock } from "./_test_support.ts";

Deno.test("graceful shutdown ends an in-flight take cleanly and exits 0", async () => {
  const mock = await startMock({ args: ["--shutdown-grace", "5s"] });
  // The control plane's handlers load on its first request: done before, so that the take below
  // is waiting within the 200 ms even on a busy machine.
  assert.equal((await control(mock.url, "GET", "/_mock/requests")).status, 200);
  const take = control(mock.url, "POST", "/_mock/requests/take", { timeoutMs: 8000 });
  // real clock: the take is waiting when SIGTERM arrives
  await new Promise((resolve) => setTimeout(resolve, 200));
  const started = performance.now();
  const code = await mock.stop("SIGTERM");
  const ended = await take;
  assert.equal(code, 0);
  assert.equal(ended.status, 404);
  assert.equal(ended.headers.get("x-mock-oidc"), "testing-only");
  assert.ok(performance.now() - started < 4000, "take was ended at shutdown, not at its timeout");
});

Deno.test("a take that outlives --request-timeout answers its own 404 problem", async () => {
  const mock = await startMock({ env: { MOCK_OIDC_REQUEST_TIMEOUT: "300ms" } });
  try {
    const res = await control(mock.url, "POST", "/_mock/requests/take", { timeoutMs: 1000 });
    assert.equal(res.status, 404);
    assert.equal(res.headers.get("content-type"), "application/problem+json");
    // The finished waiter does not swallow the next captured request.
    await (await fetch(`${mock.url}/after/jwks`)).body?.cancel();
    assert.equal((await control(mock.url, "GET", "/_mock/requests")).body.count, 1);
  } finally {
    await mock.stop();
  }
});

Deno.test("--log-format text and --log-level debug change the log output", async () => {
  const mock = await startMock({ args: ["--log-format", "text", "--log-level", "debug"] });
  try {
    await (await fetch(`${mock.url}/healthz`)).body?.cancel();
  } finally {
    await mock.stop();
  }
  const output = mock.output();
  assert.match(output, /listening/);
  assert.doesNotMatch(output.split("\n").find((l) => l.includes("listening")) ?? "", /^\{/);
});
