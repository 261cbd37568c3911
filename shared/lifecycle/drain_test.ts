import assert from "node:assert/strict";
import { localInfo } from "../http/handler.ts";
import { createDrain } from "./drain.ts";

function infoFrom(port: number, completed = Promise.resolve()): Deno.ServeHandlerInfo {
  return { remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port }, completed };
}

async function settledSoon<T>(promise: Promise<T>): Promise<boolean> {
  let settled = false;
  promise.then(() => settled = true, () => settled = true);
  // real clock: whether it settles within 50 ms tells a drain that ends from one that never does (both asserted)
  for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 5));
  return settled;
}

Deno.test("createDrain() refuses requests once draining", async (t) => {
  await t.step("with a 503 problem and Connection: close by default", async () => {
    const drain = createDrain();
    const handler = drain.track(() => new Response("ok"));
    assert.equal((await handler(new Request("http://x/"), localInfo())).status, 200);
    assert.equal(await drain.drain(1_000), true);
    const res = await handler(new Request("http://x/"), localInfo());
    assert.equal(res.status, 503);
    assert.equal(res.headers.get("connection"), "close");
    assert.equal(res.headers.get("content-type"), "application/problem+json");
    await res.body?.cancel();
  });
  await t.step("with the service's own answer when it gives one", async () => {
    const drain = createDrain({
      refuse: () => Response.json({ code: "unavailable" }, { status: 503 }),
    });
    const handler = drain.track(() => new Response("ok"));
    await drain.drain(1_000);
    const res = await handler(new Request("http://x/"), localInfo());
    assert.equal(res.status, 503);
    assert.equal(res.headers.get("connection"), "close");
    assert.deepEqual(await res.json(), { code: "unavailable" });
  });
});

Deno.test("createDrain() tells every recently busy keep-alive connection to close first", async (t) => {
  await t.step("waits until the connection's next request got its 503", async () => {
    let now = 0;
    const drain = createDrain({ now: () => now, closeNoticeMs: 1_000, quietMs: 50 });
    const handler = drain.track(() => new Response("ok"));
    assert.equal((await handler(new Request("http://x/"), infoFrom(40_001))).status, 200);
    now = 100;
    const drained = drain.drain(10_000);
    assert.equal(await settledSoon(drained), false, "the busy connection was not told yet");
    now = 500;
    const res = await handler(new Request("http://x/"), infoFrom(40_001));
    assert.equal(res.status, 503);
    assert.equal(res.headers.get("connection"), "close");
    await res.body?.cancel();
    assert.equal(await settledSoon(drained), false, "quiet for less than quietMs");
    now = 550;
    assert.equal(await drained, true);
  });
  await t.step("does not wait for one idle for closeNoticeMs", async () => {
    let now = 0;
    const drain = createDrain({ now: () => now, closeNoticeMs: 1_000, quietMs: 50 });
    const handler = drain.track(() => new Response("ok"));
    await handler(new Request("http://x/"), infoFrom(40_002));
    const drained = drain.drain(10_000);
    now = 999;
    assert.equal(await settledSoon(drained), false);
    now = 1_000;
    assert.equal(await drained, true);
  });
  await t.step("a response still in flight when the drain starts carries the notice", async () => {
    let now = 0;
    const drain = createDrain({ now: () => now });
    const gate = Promise.withResolvers<void>();
    const answered = Promise.withResolvers<void>();
    const handler = drain.track(async () => {
      await gate.promise;
      return new Response("late");
    });
    const pending = handler(new Request("http://x/"), infoFrom(40_003, answered.promise));
    const drained = drain.drain(10_000);
    gate.resolve();
    const res = await pending;
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("connection"), "close");
    await res.body?.cancel();
    assert.equal(await settledSoon(drained), false, "counted until the response is handed over");
    answered.resolve();
    now = 50;
    assert.equal(await drained, true);
  });
  await t.step(
    "resolves false when a request is still in flight at the end of the grace",
    async () => {
      let now = 0;
      const drain = createDrain({ now: () => now });
      const handler = drain.track(() => new Response("stuck"));
      const never = new Promise<void>(() => {});
      await handler(new Request("http://x/"), infoFrom(40_004, never));
      const drained = drain.drain(2_000);
      assert.equal(await settledSoon(drained), false);
      assert.equal(drain.inFlight(), 1);
      now = 2_000;
      assert.equal(await drained, false);
    },
  );
});

Deno.test("track() hands a synchronous answer back at once, a later one through a promise", async () => {
  const drain = createDrain();
  const info = localInfo();
  const now = drain.track(() => new Response("now"));
  const res = now(new Request("http://x/"), info);
  assert.ok(res instanceof Response);
  assert.equal(await res.text(), "now");
  const later = drain.track(() => Promise.resolve(new Response("later")));
  const pending = later(new Request("http://x/"), info);
  assert.ok(pending instanceof Promise);
  assert.equal(await (await pending).text(), "later");
  const throws = drain.track(() => {
    throw new Error("boom");
  });
  await assert.rejects(
    Promise.resolve().then(() => throws(new Request("http://x/"), info)),
    /boom/,
  );
  await info.completed;
  assert.equal(drain.inFlight(), 0);
});
