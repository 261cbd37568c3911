import assert from "node:assert/strict";
import { ChangeFeed } from "./change_feed.ts";

Deno.test("ChangeFeed", async (t) => {
  await t.step("wait answers at once when the version already differs", async () => {
    const feed = new ChangeFeed();
    feed.bump();
    assert.equal(await feed.wait(0, { timeoutMs: 10_000 }), 1);
    // A client that saw a higher count (before a restart) resyncs at once too.
    assert.equal(await feed.wait(7, { timeoutMs: 10_000 }), 1);
  });
  await t.step("a waiter wakes on the next bump with the new version", async () => {
    const feed = new ChangeFeed();
    const a = feed.wait(0, { timeoutMs: 10_000 });
    const b = feed.wait(0, { timeoutMs: 10_000 });
    feed.bump();
    assert.deepEqual(await Promise.all([a, b]), [1, 1]);
  });
  await t.step("the wait ends unchanged after timeoutMs", async () => {
    const feed = new ChangeFeed();
    assert.equal(await feed.wait(0, { timeoutMs: 20 }), 0);
    assert.equal(await feed.wait(0, { timeoutMs: 0 }), 0);
  });
  await t.step("an abort or a release ends the wait unchanged", async () => {
    const feed = new ChangeFeed();
    const controller = new AbortController();
    const aborted = feed.wait(0, { timeoutMs: 10_000, signal: controller.signal });
    controller.abort();
    assert.equal(await aborted, 0);
    const released = feed.wait(0, { timeoutMs: 10_000 });
    feed.release();
    assert.equal(await released, 0);
    assert.equal(feed.version, 0);
  });
});
