import assert from "node:assert/strict";
import { control, startMock } from "./_test_support.ts";

Deno.test("every stdout and stderr line is JSON after takes that hit, miss and are abandoned", async () => {
  const mock = await startMock({ args: ["--request-timeout", "300ms"] });
  let output = "";
  try {
    const hit = control(mock.url, "POST", "/_mock/requests/take", {
      issuer: "logs",
      timeoutMs: 5_000,
    });
    // real clock: the take is waiting before the request arrives (else it finds the logged entry: a weaker case)
    await new Promise((resolve) => setTimeout(resolve, 100));
    await (await fetch(`${mock.url}/logs/jwks?n=1`)).body?.cancel();
    assert.equal((await hit).status, 200);
    const miss = await control(mock.url, "POST", "/_mock/requests/take", { timeoutMs: 10 });
    assert.equal(miss.status, 404);

    // A client that gives up: its take must stop waiting by the request timeout and must not
    // swallow a request that arrives afterwards.
    const gone = new AbortController();
    const abandoned = fetch(`${mock.url}/_mock/requests/take`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ issuer: "gone", timeoutMs: 60_000 }),
      signal: gone.signal,
    }).catch(() => undefined);
    // real clock: the take is waiting before the client gives up
    await new Promise((resolve) => setTimeout(resolve, 50));
    gone.abort();
    await abandoned;
    // real clock: past the 300 ms request timeout (the subject), by which the abandoned take stops waiting
    await new Promise((resolve) => setTimeout(resolve, 500));
    await (await fetch(`${mock.url}/gone/jwks`)).body?.cancel();
    const listed = await control(mock.url, "GET", "/_mock/requests?issuer=gone");
    assert.equal(listed.body.count, 1);
  } finally {
    await mock.stop();
    output = mock.output();
  }
  const lines = output.split("\n").filter((line) => line.trim() !== "");
  assert.ok(lines.length > 0);
  for (const line of lines) {
    assert.doesNotThrow(() => JSON.parse(line), `not JSON: ${line}`);
  }
});

Deno.test("an open control plane is warned about at start, a gated one is not", async () => {
  const open = await startMock();
  await open.stop();
  const warning = /the control plane is open/;
  assert.match(open.output(), warning);
  const gated = await startMock({ args: ["--control-token", "t0ken"] });
  await gated.stop();
  assert.doesNotMatch(gated.output(), warning);
  assert.doesNotMatch(gated.output(), /t0ken/);
});
