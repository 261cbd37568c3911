import assert from "node:assert/strict";
import { hostileCases, sendRaw } from "@svc/shared/hostile";
import { control, startMock } from "./_test_support.ts";

/** Every route family of the API listener: protocol, discovery, control plane, operational. */
const ROUTES: [string, string][] = [
  ["/default/authorize", "POST"],
  ["/default/token", "POST"],
  ["/default/userinfo", "POST"],
  ["/default/introspect", "POST"],
  ["/default/revoke", "POST"],
  ["/default/endsession", "POST"],
  ["/default/jwks", "POST"],
  ["/default/device_authorization", "POST"],
  ["/default/.well-known/openid-configuration", "POST"],
  ["/.well-known/oauth-authorization-server/default", "POST"],
  ["/_mock/mint", "POST"],
  ["/_mock/scenarios", "POST"],
  ["/_mock/clock", "PUT"],
  ["/_mock/clock/advance", "POST"],
  ["/_mock/requests", "GET"],
  ["/_mock/requests/take", "POST"],
  ["/_mock/reset", "POST"],
  ["/_mock/requests/changes", "GET"],
  ["/_mock/ui", "GET"],
  ["/healthz", "GET"],
  ["/readyz", "GET"],
  ["/isalive", "GET"],
  ["/metrics", "GET"],
  ["/openapi.json", "GET"],
  ["/docs", "GET"],
  ["/favicon.ico", "GET"],
  ["/", "GET"],
];

Deno.test({
  name: "hostile input on every route: never a 5xx, and the server lives on",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const mock = await startMock({ args: ["--read-timeout", "1s", "--request-timeout", "5s"] });
    try {
      const host = new URL(mock.url).host;
      for (const [path, bodyMethod] of ROUTES) {
        await t.step(path, async () => {
          // Each route starts from an empty capture log (listing it is part of the corpus).
          await control(mock.url, "DELETE", "/_mock/requests");
          // The 10 MB body once per route family is enough; it costs time on every route.
          const huge = path === "/default/token" || path === "/_mock/mint";
          const failures: string[] = [];
          for (const c of hostileCases({ path, host, bodyMethod, huge })) {
            const res = await sendRaw(mock.url, c, { stallMs: 200, timeoutMs: 10_000 });
            if (res.status >= 500) failures.push(`${c.name}: ${res.text.split("\r\n")[0]}`);
          }
          assert.deepEqual(failures, []);
        });
      }
      await t.step("claims nested 5 000 deep on /_mock/scenarios, then a token", async () => {
        let claims: unknown = "x";
        for (let i = 0; i < 5000; i++) claims = { a: claims };
        const res = await control(mock.url, "POST", "/_mock/scenarios", {
          issuer: "deep",
          claims,
        });
        assert.ok(res.status < 500, `scenario: ${res.status}`);
        const token = await fetch(`${mock.url}/deep/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "grant_type=client_credentials&client_id=c&client_secret=s",
        });
        assert.ok(token.status < 500, `token: ${token.status}`);
        await token.body?.cancel();
      });
      await t.step("hostile queries on the console's changes feed", async () => {
        const queries = [
          "after=-1",
          "after=%00",
          `after=${"9".repeat(10_000)}`,
          "after=1e309",
          "timeoutMs=NaN",
          "timeoutMs=1&timeoutMs=99999999",
          "after=0x10",
          "after=%zz&timeoutMs=%",
          `timeoutMs=${"1".repeat(400)}`,
        ];
        for (const query of queries) {
          const res = await control(mock.url, "GET", `/_mock/requests/changes?${query}`);
          assert.ok(res.status < 500, `${query}: ${res.status}`);
        }
      });
      await t.step("the server is alive and well afterwards", async () => {
        const health = await fetch(`${mock.url}/healthz`);
        assert.equal(health.status, 200);
        await health.body?.cancel();
        const mint = await control(mock.url, "POST", "/_mock/mint", { issuer: "after" });
        assert.equal(mint.status, 200);
      });
    } finally {
      await mock.stop();
    }
  },
});
