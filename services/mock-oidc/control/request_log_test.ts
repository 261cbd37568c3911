import assert from "node:assert/strict";
import { type CapturedRequest, endpointOf, RequestLog } from "./request_log.ts";

function entry(id: string, path: string): CapturedRequest {
  return {
    id,
    receivedAt: new Date(0).toISOString(),
    issuer: path.split("/")[1],
    method: "POST",
    path,
    url: `http://x${path}`,
  };
}

Deno.test("endpointOf maps issuer paths to the Endpoint enum", () => {
  assert.equal(endpointOf("/default/token"), "token");
  assert.equal(endpointOf("/a/jwks"), "jwks");
  assert.equal(endpointOf("/a/.well-known/openid-configuration"), undefined);
  assert.equal(endpointOf("/token"), undefined);
});

Deno.test("RequestLog.take removes the oldest matching entry first", async () => {
  const log = new RequestLog();
  log.append(entry("1", "/a/token"));
  log.append(entry("2", "/b/token"));
  log.append(entry("3", "/a/userinfo"));
  assert.equal((await log.take({ issuer: "a" }, { timeoutMs: 0 }))?.id, "1");
  assert.equal((await log.take({ endpoint: "userinfo" }, { timeoutMs: 0 }))?.id, "3");
  assert.deepEqual(log.list().map((e) => e.id), ["2"]);
});

Deno.test("RequestLog.take resolves undefined after timeoutMs without a match", async () => {
  const log = new RequestLog();
  const started = performance.now();
  assert.equal(await log.take({ issuer: "a" }, { timeoutMs: 30 }), undefined);
  assert.ok(performance.now() - started >= 25);
});

Deno.test("concurrent takes are served in order and never see the same request", async () => {
  const log = new RequestLog();
  const first = log.take({}, { timeoutMs: 1000 });
  const second = log.take({}, { timeoutMs: 1000 });
  const onlyB = log.take({ issuer: "b" }, { timeoutMs: 1000 });
  log.append(entry("1", "/b/token"));
  log.append(entry("2", "/a/token"));
  log.append(entry("3", "/b/token"));
  assert.equal((await first)?.id, "1");
  assert.equal((await second)?.id, "2");
  assert.equal((await onlyB)?.id, "3");
  assert.equal(log.size, 0);
});

Deno.test("RequestLog.clear ends a waiting take cleanly", async () => {
  const log = new RequestLog();
  const waiting = log.take({}, { timeoutMs: 5000 });
  log.clear();
  assert.equal(await waiting, undefined);
  log.append(entry("1", "/a/token"));
  assert.equal(log.size, 1);
});

Deno.test("RequestLog.take gives up when its signal aborts so later requests are kept", async () => {
  const log = new RequestLog();
  const controller = new AbortController();
  const waiting = log.take({}, { timeoutMs: 5000, signal: controller.signal });
  controller.abort();
  assert.equal(await waiting, undefined);
  log.append(entry("1", "/a/token"));
  assert.equal(log.size, 1);
});

Deno.test("RequestLog drops the oldest entries beyond maxEntries", () => {
  const sizes: number[] = [];
  const log = new RequestLog({ maxEntries: 2, onSize: (n) => sizes.push(n) });
  for (const id of ["1", "2", "3"]) log.append(entry(id, "/a/token"));
  assert.deepEqual(log.list().map((e) => e.id), ["2", "3"]);
  assert.deepEqual(sizes, [1, 2, 2]);
});
