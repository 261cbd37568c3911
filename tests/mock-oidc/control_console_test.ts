import assert from "node:assert/strict";
import { concurrentSteps } from "@svc/testing";
import { control, startMock } from "./_test_support.ts";

async function getPage(base: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/_mock/ui`, { headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

function assertConsolePage(page: { status: number; headers: Headers; text: string }) {
  assert.equal(page.status, 200);
  assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
  assert.equal(page.headers.get("x-mock-oidc"), "testing-only");
  assert.equal(page.headers.get("x-content-type-options"), "nosniff");
  assert.equal(page.headers.get("cache-control"), "no-store");
  const csp = page.headers.get("content-security-policy") ?? "";
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /connect-src 'self'/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
  assert.match(page.text, /mock-oidc control plane/);
}

/** The cases: each starts its own service, so they run side by side. */
const CASES: [string, (t: Deno.TestContext) => Promise<void>][] = [
  [
    "GET /_mock/ui on the API listener: the console, strict CSP, not captured",
    async (_t: Deno.TestContext) => {
      const mock = await startMock();
      try {
        assertConsolePage(await getPage(mock.url));
        const listed = await control(mock.url, "GET", "/_mock/requests");
        assert.equal(listed.body.count, 0);
      } finally {
        await mock.stop();
      }
    },
  ],
  [
    "GET /_mock/requests/changes wakes on a protocol request made meanwhile",
    async (_t: Deno.TestContext) => {
      const mock = await startMock();
      try {
        const now = await control(mock.url, "GET", "/_mock/requests/changes");
        assert.equal(now.status, 200);
        const waiting = control(
          mock.url,
          "GET",
          `/_mock/requests/changes?after=${now.body.version}&timeoutMs=30000`,
        );
        const jwks = await fetch(`${mock.url}/seen/jwks`);
        await jwks.body?.cancel();
        const changed = await waiting;
        assert.equal(changed.status, 200);
        assert.equal(changed.body.version, now.body.version + 1);
        assert.equal(changed.body.count, 1);
        // Non-destructive: the request is still in the log for a test's take.
        const take = await control(mock.url, "POST", "/_mock/requests/take", { issuer: "seen" });
        assert.equal(take.status, 200);
        assert.equal(take.body.path, "/seen/jwks");
      } finally {
        await mock.stop();
      }
    },
  ],
  [
    "--control-token: the page loads, its calls need the token",
    async (_t: Deno.TestContext) => {
      const mock = await startMock({ args: ["--control-token", "console-secret"] });
      try {
        assertConsolePage(await getPage(mock.url));
        const anonymous = await control(mock.url, "GET", "/_mock/requests/changes");
        assert.equal(anonymous.status, 401);
        const wrong = await control(mock.url, "GET", "/_mock/clock", undefined, {
          authorization: "Bearer nope",
        });
        assert.equal(wrong.status, 401);
        for (
          const headers of [
            { authorization: "Bearer console-secret" } as Record<string, string>,
            { "x-mock-control-token": "console-secret" },
          ]
        ) {
          assert.equal(
            (await control(mock.url, "GET", "/_mock/clock", undefined, headers)).status,
            200,
          );
        }
        // Hostile credentials are a plain 401 (a 64 KiB header is refused before the gate).
        const hostile: [string, number][] = [
          [`Bearer ${"a".repeat(65_536)}`, 400],
          ["Bearer \tconsole-secret", 401],
          ["Bearer console-secret console-secret", 401],
          ["BEARER", 401],
          ["Bearer=console-secret", 401],
          ["Bearer \u00ff\u00fe", 401],
        ];
        for (const [authorization, status] of hostile) {
          const res = await control(mock.url, "GET", "/_mock/clock", undefined, { authorization });
          assert.equal(res.status, status, authorization.slice(0, 40));
        }
        // The exemption is the page only: other methods on it and other paths stay gated.
        assert.equal((await control(mock.url, "POST", "/_mock/ui", {})).status, 401);
        assert.equal((await control(mock.url, "GET", "/_mock/ui/other")).status, 401);
      } finally {
        await mock.stop();
      }
    },
  ],
  [
    "/_mock/ui follows the control plane (--control-addr, disabled)",
    async (t: Deno.TestContext) => {
      await t.step("--control-addr", async () => {
        const mock = await startMock({
          args: ["--control-addr", "127.0.0.1:0"],
          listeners: ["api", "metrics", "control"],
        });
        try {
          assertConsolePage(await getPage(mock.urls.control));
          const onApi = await getPage(mock.url);
          assert.equal(onApi.status, 404);
          assert.equal(onApi.headers.get("content-type"), "application/problem+json");
        } finally {
          await mock.stop();
        }
      });
      await t.step("--control-enabled=false", async () => {
        const mock = await startMock({ args: ["--control-enabled=false"] });
        try {
          const page = await getPage(mock.url);
          assert.equal(page.status, 404);
          assert.doesNotMatch(page.text, /<html/);
        } finally {
          await mock.stop();
        }
      });
    },
  ],
];

// Independent cases, each on its own service (own flags or an empty log).
Deno.test("the console page and its control plane", async (t) => {
  await concurrentSteps(
    t,
    CASES,
    { concurrency: 4, name: ([name]) => name },
    ([, fn], st) => fn(st),
  );
});
