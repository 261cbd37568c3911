import assert from "node:assert/strict";
import { listRequests } from "./request_routes.ts";
import { RequestLog } from "./request_log.ts";
import { captureOf } from "./capture.ts";

function capture(log: RequestLog, id: string, body: string): void {
  const req = new Request(`http://mock.test/a/token`, { method: "POST" });
  log.append(captureOf(req, new TextEncoder().encode(body), { id, receivedAt: new Date(0) }));
}

Deno.test("GET /_mock/requests streams valid JSON for none, one and several entries", async () => {
  const log = new RequestLog();
  const list = async () => await listRequests(new Request("http://x/_mock/requests"), log).json();
  assert.deepEqual(await list(), { count: 0, requests: [] });
  capture(log, "1", "a=1");
  assert.deepEqual((await list()).requests.map((e: { body: string }) => e.body), ["a=1"]);
  capture(log, "2", "b=2");
  const both = await list();
  assert.equal(both.count, 2);
  assert.deepEqual(both.requests.map((e: { bodyBase64: string }) => atob(e.bodyBase64)), [
    "a=1",
    "b=2",
  ]);
});

Deno.test("GET /_mock/requests still lists the bodies it was asked for when a reset comes first", async () => {
  const log = new RequestLog();
  capture(log, "1", "a=1");
  capture(log, "2", "b=2");
  const res = listRequests(new Request("http://x/_mock/requests"), log);
  assert.equal(res.headers.get("x-mock-oidc"), "testing-only");
  log.clear(); // frees the bodies the log held, but not those the listing still has to send
  const listed = await res.json();
  assert.deepEqual(listed.requests.map((e: { body: string }) => e.body), ["a=1", "b=2"]);
  capture(log, "3", "c=3");
  const cancelled = listRequests(new Request("http://x/_mock/requests"), log);
  await cancelled.body?.cancel();
  log.clear();
  assert.equal(log.size, 0);
});
