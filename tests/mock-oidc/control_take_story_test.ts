import assert from "node:assert/strict";
import { concurrentSteps } from "@svc/testing";
import { control, startMock } from "./_test_support.ts";

function decodeBase64(text: string): string {
  return new TextDecoder().decode(Uint8Array.from(atob(text), (c) => c.charCodeAt(0)));
}

/** The cases: each starts its own service, so they run side by side. */
const CASES: [string, (t: Deno.TestContext) => Promise<void>][] = [
  [
    "story: a waiting take receives the protocol request another client makes",
    async (_t: Deno.TestContext) => {
      const mock = await startMock();
      try {
        const take = control(mock.url, "POST", "/_mock/requests/take", {
          endpoint: "token",
          issuer: "cap",
          timeoutMs: 10_000,
        });
        // real clock: the take is waiting before the request arrives (else it finds the logged entry: a weaker case)
        await new Promise((resolve) => setTimeout(resolve, 100));
        const raw =
          "grant_type=client_credentials&scope=b+a&scope=x%2By&client_id=c%20d&client_secret=s";
        const res = await fetch(`${mock.url}/cap/token?trace=1&trace=2`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", "x-test": "yes" },
          body: raw,
        });
        assert.equal(res.status, 200);
        await res.body?.cancel();
        const taken = await take;
        assert.equal(taken.status, 200);
        assert.equal(taken.headers.get("x-mock-oidc"), "testing-only");
        assert.equal(taken.body.issuer, "cap");
        assert.equal(taken.body.method, "POST");
        assert.equal(taken.body.path, "/cap/token");
        assert.deepEqual(taken.body.query, { trace: ["1", "2"] });
        assert.deepEqual(taken.body.headers["x-test"], ["yes"]);
        assert.equal(decodeBase64(taken.body.bodyBase64), raw);
        assert.equal(taken.body.body, raw);
        assert.ok(!Number.isNaN(Date.parse(taken.body.receivedAt)));
        // Take is destructive: the log no longer holds it.
        const listed = await control(mock.url, "GET", "/_mock/requests?endpoint=token");
        assert.deepEqual(listed.body, { count: 0, requests: [] });
      } finally {
        await mock.stop();
      }
    },
  ],
  [
    "concurrent takes are served in order and never get the same request",
    async (_t: Deno.TestContext) => {
      const mock = await startMock();
      try {
        const takes = [0, 1, 2].map((i) =>
          // real clock: takes start 50 ms apart, so their FIFO order is known
          new Promise((resolve) => setTimeout(resolve, i * 50)).then(() =>
            control(mock.url, "POST", "/_mock/requests/take", { issuer: "fifo", timeoutMs: 10_000 })
          )
        );
        // real clock: all three takes are waiting before the requests arrive
        await new Promise((resolve) => setTimeout(resolve, 300));
        for (const n of [1, 2, 3]) {
          const res = await fetch(`${mock.url}/fifo/jwks?n=${n}`);
          await res.body?.cancel();
        }
        const results = await Promise.all(takes);
        assert.deepEqual(results.map((r) => r.body.query.n[0]), ["1", "2", "3"]);
      } finally {
        await mock.stop();
      }
    },
  ],
  [
    "take misses answer 404 after timeoutMs; excluded routes are never captured",
    async (_t: Deno.TestContext) => {
      const mock = await startMock();
      try {
        for (const path of ["/healthz", "/isalive", "/readyz", "/openapi.json", "/favicon.ico"]) {
          const res = await fetch(`${mock.url}${path}`);
          await res.body?.cancel();
        }
        await control(mock.url, "GET", "/_mock/clock");
        const started = performance.now();
        const miss = await control(mock.url, "POST", "/_mock/requests/take", { timeoutMs: 200 });
        assert.equal(miss.status, 404);
        assert.equal(miss.headers.get("content-type"), "application/problem+json");
        assert.ok(performance.now() - started >= 190);
        assert.equal((await control(mock.url, "GET", "/_mock/requests")).body.count, 0);

        const res = await fetch(`${mock.url}/logged/.well-known/openid-configuration`);
        await res.body?.cancel();
        const list = await control(mock.url, "GET", "/_mock/requests?issuer=logged");
        assert.equal(list.body.count, 1);
        assert.deepEqual(await control(mock.url, "DELETE", "/_mock/requests").then((r) => r.body), {
          cleared: true,
        });
      } finally {
        await mock.stop();
      }
    },
  ],
  [
    "story: reset while a take waits ends the take cleanly and empties the log",
    async (_t: Deno.TestContext) => {
      const mock = await startMock();
      try {
        await fetch(`${mock.url}/r/jwks`).then((r) => r.body?.cancel());
        const take = control(mock.url, "POST", "/_mock/requests/take", {
          endpoint: "token",
          timeoutMs: 10_000,
        });
        // real clock: the take is waiting when the reset arrives
        await new Promise((resolve) => setTimeout(resolve, 100));
        const started = performance.now();
        assert.deepEqual((await control(mock.url, "POST", "/_mock/reset")).body, { reset: true });
        const ended = await take;
        assert.equal(ended.status, 404);
        assert.ok(performance.now() - started < 2000);
        assert.equal((await control(mock.url, "GET", "/_mock/requests")).body.count, 0);
      } finally {
        await mock.stop();
      }
    },
  ],
  [
    "a take whose client went away does not swallow the next matching request",
    async (_t: Deno.TestContext) => {
      const mock = await startMock();
      try {
        const gone = new AbortController();
        const abandoned = fetch(`${mock.url}/_mock/requests/take`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ issuer: "g", timeoutMs: 5000 }),
          signal: gone.signal,
        }).catch((err) => err);
        // real clock: the take is waiting before the client gives up
        await new Promise((resolve) => setTimeout(resolve, 300));
        gone.abort(); // as `curl -m1` does
        await abandoned;
        // real clock: past the request timeout, by which the abandoned take stops waiting
        await new Promise((resolve) => setTimeout(resolve, 300));
        const jwks = await fetch(`${mock.url}/g/jwks`);
        assert.equal(jwks.status, 200);
        await jwks.body?.cancel();
        const listed = await control(mock.url, "GET", "/_mock/requests?issuer=g");
        assert.equal(listed.body.count, 1, "the request is still in the log");
        const taken = await control(mock.url, "POST", "/_mock/requests/take", { issuer: "g" });
        assert.equal(taken.status, 200);
        assert.equal(taken.body.path, "/g/jwks");
      } finally {
        await mock.stop();
      }
    },
  ],
  [
    "a take waiting longer than the request timeout answers its own 404, not 503",
    async (_t: Deno.TestContext) => {
      const mock = await startMock({ args: ["--request-timeout", "1s"] });
      try {
        const started = performance.now();
        const miss = await control(mock.url, "POST", "/_mock/requests/take", {
          issuer: "slow",
          timeoutMs: 2500,
        });
        const waited = performance.now() - started;
        assert.equal(miss.status, 404);
        assert.equal(miss.body.status, 404);
        assert.ok(waited >= 2400, `answered after ${Math.round(waited)} ms, at its own deadline`);
        // Other requests still get the 1 s request timeout's bound; the take's raise was its own.
        const fast = await control(mock.url, "POST", "/_mock/requests/take", {
          issuer: "slow",
          timeoutMs: 0,
        });
        assert.equal(fast.status, 404);
      } finally {
        await mock.stop();
      }
    },
  ],
  [
    "--capture-max-bytes bounds the capture log, the oldest entries going first",
    async (_t: Deno.TestContext) => {
      const mock = await startMock({ args: ["--capture-max-bytes", "300000"] });
      try {
        for (let i = 0; i < 5; i++) {
          const res = await fetch(`${mock.url}/cap/token?n=${i}`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: `grant_type=client_credentials&pad=${"x".repeat(60_000)}`,
          });
          await res.body?.cancel();
        }
        const listed = await control(mock.url, "GET", "/_mock/requests?issuer=cap");
        assert.ok(listed.body.count >= 1 && listed.body.count < 5, `kept ${listed.body.count}`);
        const kept = listed.body.requests.map((r: { query: { n: string[] } }) =>
          Number(r.query.n[0])
        );
        assert.equal(kept.at(-1), 4, "the newest is kept");
        assert.deepEqual(kept, [...kept].sort(), "in arrival order");
      } finally {
        await mock.stop();
      }
    },
  ],
];

// Independent cases, each on its own service (some need their own flags or a fresh log).
Deno.test("take: the capture log's long-poll, stories and bounds", async (t) => {
  await concurrentSteps(
    t,
    CASES,
    { concurrency: 4, name: ([name]) => name },
    ([, fn], st) => fn(st),
  );
});
