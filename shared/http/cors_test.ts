import assert from "node:assert/strict";
import { withCors } from "./cors.ts";
import { localInfo } from "./handler.ts";

const ok = () => new Response("ok");
/** What mock-oidc asks for: any Origin, with credentials. */
const ANY = { reflectAnyOrigin: true, credentials: true } as const;

function call(h: ReturnType<typeof withCors>, init: RequestInit & { path?: string }) {
  return h(new Request("http://svc.test" + (init.path ?? "/"), init), localInfo());
}

Deno.test("withCors() asked to reflect any Origin with credentials does so", async () => {
  const res = await call(withCors(ok, ANY), { headers: { Origin: "https://a.test" } });
  assert.equal(res.headers.get("access-control-allow-origin"), "https://a.test");
  assert.equal(res.headers.get("access-control-allow-credentials"), "true");
  assert.match(res.headers.get("vary") ?? "", /Origin/);
  assert.equal(await res.text(), "ok");
});

Deno.test("withCors() answers preflight with 204, methods and echoed headers", async () => {
  const res = await call(withCors(ok, ANY), {
    method: "OPTIONS",
    headers: {
      Origin: "https://a.test",
      "Access-Control-Request-Method": "POST",
      "Access-Control-Request-Headers": "content-type, x-custom",
    },
  });
  assert.equal(res.status, 204);
  assert.equal(res.headers.get("access-control-allow-methods"), "POST, GET, OPTIONS");
  assert.equal(res.headers.get("access-control-allow-headers"), "content-type, x-custom");
  assert.equal(res.headers.get("access-control-allow-origin"), "https://a.test");
});

Deno.test("withCors() never emits the * wildcard", async () => {
  for (const origin of ["*", "null", "https://x.test"]) {
    const res = await call(withCors(ok, ANY), { headers: { Origin: origin } });
    assert.equal(res.headers.get("access-control-allow-origin"), origin);
    await res.body?.cancel();
  }
  const noOrigin = await call(withCors(ok, ANY), {});
  assert.equal(noOrigin.headers.get("access-control-allow-origin"), null);
  await noOrigin.body?.cancel();
});

Deno.test("withCors() with an allowlist reflects exactly the listed origins", async (t) => {
  const h = withCors(ok, { allowedOrigins: ["https://a.test"] });
  await t.step("listed origin", async () => {
    const res = await call(h, { headers: { Origin: "https://a.test" } });
    assert.equal(res.headers.get("access-control-allow-origin"), "https://a.test");
    await res.body?.cancel();
  });
  await t.step("other origin gets no CORS headers", async () => {
    const res = await call(h, { headers: { Origin: "https://a.test.evil" } });
    assert.equal(res.headers.get("access-control-allow-origin"), null);
    assert.equal(res.headers.get("access-control-allow-credentials"), null);
    await res.body?.cancel();
  });
  await t.step("preflight from other origin is 204 without allow headers", async () => {
    const res = await call(h, {
      method: "OPTIONS",
      headers: { Origin: "https://b.test", "Access-Control-Request-Method": "GET" },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("access-control-allow-origin"), null);
  });
});

Deno.test("withCors() passes plain OPTIONS (no preflight) to the handler", async () => {
  const res = await call(withCors(() => new Response("h", { status: 405 })), {
    method: "OPTIONS",
    headers: { Origin: "https://a.test" },
  });
  assert.equal(res.status, 405);
  await res.body?.cancel();
});

Deno.test("withCors() decorates immutable responses", async () => {
  const immutable = () => Response.redirect("http://svc.test/x", 302);
  const res = await call(withCors(immutable, ANY), { headers: { Origin: "https://a.test" } });
  assert.equal(res.status, 302);
  assert.equal(res.headers.get("access-control-allow-origin"), "https://a.test");
});

Deno.test("withCors() by default reflects no Origin and never sends credentials", async (t) => {
  for (const origin of ["https://a.test", "null", "*"]) {
    await t.step(`Origin ${origin}`, async () => {
      const res = await call(withCors(ok), { headers: { Origin: origin } });
      assert.equal(res.headers.get("access-control-allow-origin"), null);
      assert.equal(res.headers.get("access-control-allow-credentials"), null);
      assert.equal(await res.text(), "ok");
    });
  }
  await t.step("preflight is 204 without allow headers", async () => {
    const res = await call(withCors(ok), {
      method: "OPTIONS",
      headers: { Origin: "https://a.test", "Access-Control-Request-Method": "POST" },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("access-control-allow-origin"), null);
    assert.equal(res.headers.get("access-control-allow-methods"), null);
  });
});

Deno.test("withCors() sends credentials only when asked, and only to allowed origins", async (t) => {
  await t.step("allowlist without credentials", async () => {
    const res = await call(withCors(ok, { allowedOrigins: ["https://a.test"] }), {
      headers: { Origin: "https://a.test" },
    });
    assert.equal(res.headers.get("access-control-allow-origin"), "https://a.test");
    assert.equal(res.headers.get("access-control-allow-credentials"), null);
    await res.body?.cancel();
  });
  await t.step("allowlist with credentials", async () => {
    const h = withCors(ok, { allowedOrigins: ["https://a.test"], credentials: true });
    const listed = await call(h, { headers: { Origin: "https://a.test" } });
    assert.equal(listed.headers.get("access-control-allow-credentials"), "true");
    await listed.body?.cancel();
    const other = await call(h, { headers: { Origin: "https://evil.test" } });
    assert.equal(other.headers.get("access-control-allow-origin"), null);
    assert.equal(other.headers.get("access-control-allow-credentials"), null);
    await other.body?.cancel();
  });
  await t.step("reflectAnyOrigin without credentials", async () => {
    const res = await call(withCors(ok, { reflectAnyOrigin: true }), {
      headers: { Origin: "https://b.test" },
    });
    assert.equal(res.headers.get("access-control-allow-origin"), "https://b.test");
    assert.equal(res.headers.get("access-control-allow-credentials"), null);
    await res.body?.cancel();
  });
  await t.step("an allowlist wins over reflectAnyOrigin", async () => {
    const h = withCors(ok, { ...ANY, allowedOrigins: ["https://a.test"] });
    const res = await call(h, { headers: { Origin: "https://b.test" } });
    assert.equal(res.headers.get("access-control-allow-origin"), null);
    await res.body?.cancel();
  });
});

Deno.test("withCors() allows origins by rule and exposes the named response headers", async (t) => {
  const h = withCors(ok, {
    allowedOrigins: ["https://listed.test"],
    isAllowed: (origin) => origin.startsWith("http://localhost:"),
    exposeHeaders: "WWW-Authenticate, Mcp-Session-Id",
  });
  for (const origin of ["http://localhost:6274", "https://listed.test"]) {
    await t.step(`allowed: ${origin}`, async () => {
      const res = await call(h, { headers: { Origin: origin } });
      assert.equal(res.headers.get("access-control-allow-origin"), origin);
      assert.equal(
        res.headers.get("access-control-expose-headers"),
        "WWW-Authenticate, Mcp-Session-Id",
      );
      await res.body?.cancel();
      const pre = await call(h, {
        method: "OPTIONS",
        headers: { Origin: origin, "Access-Control-Request-Method": "POST" },
      });
      assert.equal(pre.status, 204);
      assert.equal(pre.headers.get("access-control-allow-origin"), origin);
      assert.equal(pre.headers.get("access-control-expose-headers"), null, "not on preflight");
    });
  }
  await t.step("neither listed nor matching the rule: no CORS headers", async () => {
    const res = await call(h, { headers: { Origin: "http://localhost.evil.test" } });
    assert.equal(res.headers.get("access-control-allow-origin"), null);
    assert.equal(res.headers.get("access-control-expose-headers"), null);
    await res.body?.cancel();
  });
});
