import assert from "node:assert/strict";
import { type CapturedRequest, endpointOf, entryBytes, RequestLog } from "./request_log.ts";
import { bodySizeOf, holdBody } from "./captured_body.ts";

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
  assert.equal(endpointOf("/realms/x/token"), "token");
  assert.equal(endpointOf("/a/token/authorize"), "authorize");
  assert.equal(endpointOf("/a/b/register/c1"), undefined);
  assert.equal(endpointOf("/token"), undefined);
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

Deno.test("RequestLog keeps its byte budget by dropping the oldest entries first", async (t) => {
  const big = (id: string) => ({ ...entry(id, "/a/token"), body: "x".repeat(10_000) });
  const one = entryBytes(big("0"));
  await t.step("at the budget: everything kept", () => {
    const log = new RequestLog({ maxBytes: 3 * one });
    for (const id of ["1", "2", "3"]) log.append(big(id));
    assert.deepEqual(log.list().map((e) => e.id), ["1", "2", "3"]);
    assert.equal(log.bytes, 3 * one);
  });
  await t.step("one byte below: the oldest goes", () => {
    const log = new RequestLog({ maxBytes: 3 * one - 1 });
    for (const id of ["1", "2", "3"]) log.append(big(id));
    assert.deepEqual(log.list().map((e) => e.id), ["2", "3"]);
    assert.equal(log.bytes, 2 * one);
  });
  await t.step("an entry larger than the whole budget is kept alone", () => {
    const log = new RequestLog({ maxBytes: 100 });
    log.append(big("1"));
    log.append(big("2"));
    assert.deepEqual(log.list().map((e) => e.id), ["2"]);
  });
  await t.step("take and clear give the bytes back", async () => {
    const log = new RequestLog({ maxBytes: 10 * one });
    log.append(big("1"));
    log.append(big("2"));
    await log.take({}, { timeoutMs: 0 });
    assert.equal(log.bytes, one);
    log.clear();
    assert.equal(log.bytes, 0);
  });
});

Deno.test("RequestLog.restore puts an undelivered entry back in arrival order", async () => {
  const log = new RequestLog();
  const at = (id: string, ms: number) => ({
    ...entry(id, "/a/jwks"),
    receivedAt: new Date(ms).toISOString(),
  });
  log.append(at("1", 1));
  log.append(at("2", 2));
  log.append(at("3", 3));
  const taken = await log.take({}, { timeoutMs: 0 });
  assert.equal(taken?.id, "1");
  log.restore(taken!);
  assert.deepEqual(log.list().map((e) => e.id), ["1", "2", "3"]);
  // A waiting take gets a restored entry directly.
  const empty = new RequestLog();
  const waiting = empty.take({ issuer: "a" }, { timeoutMs: 1000 });
  empty.restore(at("9", 9));
  assert.equal((await waiting)?.id, "9");
  assert.equal(empty.size, 0);
});

Deno.test("RequestLog counts a captured body at one byte per byte and frees what it drops", async (t) => {
  const captured = (id: string) => {
    const e = entry(id, "/a/token");
    holdBody(e, new Uint8Array(100_000).fill(0x61));
    return e;
  };
  const detached = (e: CapturedRequest) => bodySizeOf(e) === 0;
  const one = entryBytes(captured("0"));
  await t.step("the estimate is the body's bytes plus the fixed overhead", () => {
    const bare = entryBytes(entry("0", "/a/token"));
    assert.equal(one - bare, 100_000);
  });
  await t.step("at the budget: everything kept, nothing freed", () => {
    const log = new RequestLog({ maxBytes: 3 * one });
    const all = ["1", "2", "3"].map(captured);
    for (const e of all) log.append(e);
    assert.equal(log.bytes, 3 * one);
    assert.deepEqual(all.map(detached), [false, false, false]);
  });
  await t.step("one byte below: the oldest is dropped and its bytes freed at once", () => {
    const log = new RequestLog({ maxBytes: 3 * one - 1 });
    const all = ["1", "2", "3"].map(captured);
    for (const e of all) log.append(e);
    assert.deepEqual(log.list().map((e) => e.id), ["2", "3"]);
    assert.equal(log.bytes, 2 * one);
    assert.deepEqual(all.map(detached), [true, false, false]);
    assert.equal(all[0].bodyBase64, undefined);
  });
  await t.step("one byte above: still everything kept", () => {
    const log = new RequestLog({ maxBytes: 3 * one + 1 });
    const all = ["1", "2", "3"].map(captured);
    for (const e of all) log.append(e);
    assert.equal(log.size, 3);
    assert.deepEqual(all.map(detached), [false, false, false]);
  });
  await t.step("clear (reset) frees every body; a taken entry stays the taker's", async () => {
    const log = new RequestLog({ maxBytes: 10 * one });
    const all = ["1", "2", "3"].map(captured);
    for (const e of all) log.append(e);
    const taken = await log.take({}, { timeoutMs: 0 });
    log.clear();
    assert.equal(log.bytes, 0);
    assert.deepEqual(all.map(detached), [false, true, true]);
    assert.equal(taken?.body, "a".repeat(100_000));
  });
});
