import assert from "node:assert/strict";
import { type HostileCase, hostileCases, sendRaw } from "@svc/testing/hostile";
import { concurrentSteps } from "@svc/testing";
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
  ["/default/debugger", "POST"],
  ["/default/debugger/callback", "POST"],
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
      // Four routes at a time: a route's cases mostly wait on the server (the stalled upload
      // waits out the 1 s read timeout), so this keeps every case while cutting the wall time.
      const routes = { concurrency: 4, name: ([path]: [string, string]) => path };
      await concurrentSteps(t, ROUTES, routes, async ([path, bodyMethod]) => {
        // The capture log is emptied before each route (listing it is part of the corpus), so
        // it never holds more than the routes in flight.
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
      await t.step("debugger: hostile form fields, callback parameters and cookies", async () => {
        const start = await fetch(`${mock.url}/default/debugger`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "",
          redirect: "manual",
        });
        await start.body?.cancel();
        const sealed = start.headers.get("set-cookie")!.split(";")[0].split("=")[1];
        const failures: string[] = [];
        for (const [c, expected] of debuggerCases(host, sealed)) {
          const res = await sendRaw(mock.url, c, { timeoutMs: 10_000 });
          const ok = typeof expected === "number" ? res.status === expected : expected(res.status);
          if (!ok) failures.push(`${c.name}: ${res.text.split("\r\n")[0] || "no response"}`);
        }
        assert.deepEqual(failures, []);
      });
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

const enc = new TextEncoder();

/** One raw request (the head's Content-Length from `body`). */
function raw(
  name: string,
  method: string,
  target: string,
  headers: Record<string, string>,
  body?: string | Uint8Array,
): HostileCase {
  const bytes = typeof body === "string" ? enc.encode(body) : body;
  const lines = [
    `${method} ${target} HTTP/1.1`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  if (bytes) lines.push(`content-length: ${bytes.length}`);
  lines.push("connection: close");
  return { name, head: lines.join("\r\n"), body: bytes };
}

/**
 * The debugger's own corpus, each with the status it must get: form fields, callback
 * parameters and the `debugger-session` cookie (`sealed` is a valid one to alter).
 */
function debuggerCases(
  host: string,
  sealed: string,
): [HostileCase, number | ((status: number) => boolean)][] {
  const form = { host, "content-type": "application/x-www-form-urlencoded" };
  const post = (name: string, body: string | Uint8Array) =>
    raw(name, "POST", "/default/debugger", form, body);
  const fields = ["client_id", "client_secret", "client_auth", "scope", "response_type"]
    .concat(["response_mode", "state", "nonce", "pkce"]);
  const every = (value: string) => fields.map((f) => `${f}=${value}`).join("&");
  // The free-text fields only: client_auth and response_mode take fixed values (400 otherwise).
  const texts = (value: string) =>
    fields.filter((f) => !["client_auth", "response_mode", "pkce"].includes(f))
      .map((f) => `${f}=${value}`).join("&");
  const callback = "/default/debugger/callback";
  const withCookie = (name: string, cookie: string, target = `${callback}?code=x&state=1234`) =>
    raw(name, "GET", target, { host, cookie });
  const good = `debugger-session=${sealed}`;
  const flipped = sealed.slice(0, -2) + (sealed.endsWith("A") ? "BB" : "AA");
  const b64 = (s: string) => btoa(s).replace(/=+$/, "");
  const is4xx = (s: number) => s >= 400 && s < 500;
  return [
    [post("every field 100 000 characters", every("a".repeat(100_000))), 400],
    [post("NUL, CR, LF and other controls in every text field", texts("%00%0d%0a%01%7f")), 302],
    [post("invalid UTF-8 escapes in every text field", texts("%ff%fe%c0")), 302],
    [post("invalid UTF-8 escapes in every field", every("%ff%fe%c0")), 400],
    [post("10 000 repeated fields", "client_id=a&".repeat(10_000)), 302],
    [
      post(
        "script-scheme response_mode, unknown client_auth",
        "response_mode=javascript:x&client_auth=none",
      ),
      400,
    ],
    [post("form body one byte over 1 MiB", "a".repeat(1024 * 1024 + 1)), 413],
    [post("every text field at the bound: too long for a cookie", texts("x".repeat(512))), 400],
    [
      raw("multipart body", "POST", "/default/debugger", {
        host,
        "content-type": "multipart/form-data; boundary=x",
      }, "--x\r\ncontent-disposition: form-data; name=client_id\r\n\r\na\r\n--x--"),
      302,
    ],
    [withCookie("100 KB code", good, `${callback}?code=${"c".repeat(100_000)}&state=1234`), 400],
    [
      withCookie(
        "script and CRLF in error",
        good,
        `${callback}?error=%3Cscript%3E&error_description=%0d%0aSet-Cookie:x`,
      ),
      400,
    ],
    [withCookie("state with NUL and CRLF", good, `${callback}?code=x&state=%00%0d%0a`), 400],
    [
      withCookie("1 000 repeated codes", good, `${callback}?${"code=x&".repeat(1000)}state=1234`),
      400,
    ],
    [withCookie("bad percent escapes", good, `${callback}?code=%zz&state=%`), 400],
    [
      raw("POST callback with a JSON body", "POST", callback, {
        host,
        cookie: good,
        "content-type": "application/json",
      }, '{"code":"x"}'),
      400,
    ],
    [withCookie("cookie with one flipped character", `debugger-session=${flipped}`), 400],
    [
      withCookie(
        "forged alg=none cookie",
        `debugger-session=${b64('{"alg":"none"}')}.${b64("{}")}.`,
      ),
      400,
    ],
    [
      withCookie(
        "forged dir/A256GCM cookie",
        `debugger-session=${b64('{"alg":"dir","enc":"A256GCM"}')}..AAAA.AAAA.AAAA`,
      ),
      400,
    ],
    [
      withCookie(
        "five parts of 3 000 characters",
        `debugger-session=${Array(5).fill("A".repeat(3000)).join(".")}`,
      ),
      400,
    ],
    [withCookie("7 KB cookie", `debugger-session=${sealed}${"A".repeat(7000)}`), 400],
    [withCookie("100 KB cookie", `debugger-session=${"A".repeat(100_000)}`), is4xx],
    [withCookie("empty cookie value", "debugger-session="), 400],
    [withCookie("cookie name without a value", "debugger-session"), 400],
    [withCookie("control character in the cookie", `debugger-session=a\x01b`), is4xx],
    [
      withCookie(
        "50 session cookies, the first forged",
        `${"debugger-session=x; ".repeat(50)}${good}`,
      ),
      400,
    ],
    [withCookie("non-ASCII in the cookie", "debugger-session=\u00e9\u00e9"), is4xx],
    [
      withCookie(
        "cookie of another issuer path",
        good,
        `/other/debugger/callback?code=x&state=1234`,
      ),
      400,
    ],
  ];
}
