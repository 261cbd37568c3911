import assert from "node:assert/strict";
import { captureInProcess, isExcludedFromCapture, issuerOfPath, withCapture } from "./capture.ts";
import { noteDpop } from "../protocol/dpop_challenges.ts";
import { RequestLog } from "./request_log.ts";
import { readBody } from "@svc/shared/http";

const INFO = {
  remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 1 },
  completed: Promise.resolve(),
} as unknown as Deno.ServeHandlerInfo;

Deno.test("withCapture keeps the exact raw body bytes and forwards the same body", async () => {
  const log = new RequestLog();
  let forwarded = "";
  const handler = withCapture(async (req) => {
    forwarded = await req.text();
    return new Response("ok");
  }, { log, randomId: () => "id-1", now: () => 0 });
  const raw = "b=2&a=1&a=%2B+x&c=%zz";
  const res = await handler(
    new Request("http://mock.test/default/token?x=1&x=2", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-dup": "v" },
      body: raw,
    }),
    INFO,
  );
  await res.body?.cancel();
  assert.equal(forwarded, raw);
  const [entry] = log.list();
  assert.equal(entry.id, "id-1");
  assert.equal(entry.issuer, "default");
  assert.equal(entry.path, "/default/token");
  assert.equal(entry.receivedAt, "1970-01-01T00:00:00.000Z");
  assert.deepEqual(entry.query, { x: ["1", "2"] });
  assert.deepEqual(entry.headers?.["x-dup"], ["v"]);
  assert.equal(atob(entry.bodyBase64!), raw);
  assert.equal(entry.body, raw);
});

Deno.test("withCapture records bodiless GETs without body fields", async () => {
  const log = new RequestLog();
  const handler = withCapture(() => new Response("ok"), { log });
  await handler(new Request("http://mock.test/a/jwks"), INFO);
  const [entry] = log.list();
  assert.equal(entry.bodyBase64, undefined);
  assert.equal(entry.method, "GET");
});

Deno.test("excluded routes are never captured", () => {
  for (
    const path of [
      "/_mock/clock",
      "/healthz",
      "/readyz",
      "/isalive",
      "/metrics",
      "/openapi.json",
      "/openapi.yaml",
      "/docs",
      "/docs/swagger-ui.css",
      "/favicon.ico",
    ]
  ) assert.ok(isExcludedFromCapture(path), path);
  assert.equal(isExcludedFromCapture("/default/token"), false);
  assert.equal(isExcludedFromCapture("/a/.well-known/openid-configuration"), false);
});

Deno.test("issuerOfPath reads the issuer from issuer paths and RFC 8414 discovery", () => {
  assert.equal(issuerOfPath("/default/token"), "default");
  assert.equal(issuerOfPath("/.well-known/oauth-authorization-server/tenant"), "tenant");
  assert.equal(issuerOfPath("/a%20b/jwks"), "a b");
  // Several segments: what precedes the endpoint suffix (the suffix decides, as in the table).
  assert.equal(issuerOfPath("/realms/x/token"), "realms/x");
  assert.equal(issuerOfPath("/tenant1/v2.0/.well-known/openid-configuration"), "tenant1/v2.0");
  assert.equal(issuerOfPath("/a/register/token"), "a/register");
  assert.equal(issuerOfPath("/a/b/register/c1"), "a/b");
  assert.equal(issuerOfPath("/realms/a%20b/jwks"), "realms/a b");
  assert.equal(issuerOfPath("/.well-known/oauth-authorization-server/realms/x"), "realms/x");
  // No endpoint suffix: the first segment, as before.
  assert.equal(issuerOfPath("/realms/x/unknown"), "realms");
});

Deno.test("withCapture hands the handler the bytes it keeps, valid even if the log drops them", async () => {
  const log = new RequestLog({ maxEntries: 1 });
  let seen = "";
  const handler = withCapture(async (req) => {
    // Another request's capture drops this one from the log while its handler still runs.
    log.append({
      id: "other",
      receivedAt: "",
      issuer: "a",
      method: "GET",
      path: "/a/jwks",
      url: "",
    });
    // real clock: the handler reads the body a timer later, after capture has logged the request
    await new Promise((r) => setTimeout(r, 1));
    seen = new TextDecoder().decode(await readBody(req, { limit: 100 }));
    return new Response("ok");
  }, { log });
  const res = await handler(
    new Request("http://mock.test/a/token", { method: "POST", body: "grant_type=x" }),
    INFO,
  );
  await res.body?.cancel();
  assert.equal(seen, "grant_type=x");
  assert.deepEqual(log.list().map((e) => e.id), ["other"]);
});

Deno.test("a checked proof is noted on its entry once answered, and the log counts it a change", async () => {
  const log = new RequestLog();
  let versionWhileAnswering = -1;
  const handler = withCapture((req) => {
    versionWhileAnswering = log.changes.version;
    if (req.method === "POST") {
      noteDpop(req, { jkt: "k", verified: false, error: "use_dpop_nonce" });
    }
    return new Response("no");
  }, { log });
  await (await handler(new Request("http://mock.test/default/token", { method: "POST" }), INFO))
    .body?.cancel();
  const [entry] = log.list();
  assert.equal(versionWhileAnswering, 1);
  assert.deepEqual(entry.dpop, { jkt: "k", verified: false, error: "use_dpop_nonce" });
  // The append, then the note: a console that listed the entry meanwhile lists it again.
  assert.equal(log.changes.version, 2);
  // Without a proof there is no second change.
  await (await handler(new Request("http://mock.test/default/jwks"), INFO)).body?.cancel();
  assert.equal(log.changes.version, 3);
  assert.equal(log.list()[1].dpop, undefined);
});

Deno.test("captureInProcess logs a call the provider makes to itself, with its body", async () => {
  const log = new RequestLog();
  const record = captureInProcess({ log, randomId: () => "self", now: () => 0 });
  let read = "";
  const res = await record(
    new Request("http://mock.test/default/par", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "user-agent": "me" },
      body: "a=1",
    }),
    async (req) => {
      read = await req.text();
      noteDpop(req, { jkt: "k", verified: true });
      return new Response("{}", { status: 201 });
    },
  );
  assert.equal(res.status, 201);
  await res.body?.cancel();
  assert.equal(read, "a=1");
  const [entry] = log.list();
  assert.equal(entry.id, "self");
  assert.equal(entry.path, "/default/par");
  assert.equal(entry.body, "a=1");
  assert.deepEqual(entry.headers?.["user-agent"], ["me"]);
  assert.deepEqual(entry.dpop, { jkt: "k", verified: true });
});
