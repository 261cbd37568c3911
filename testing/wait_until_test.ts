import assert from "node:assert/strict";
import { nextTurn, waitUntil } from "./wait_until.ts";

Deno.test("waitUntil", async (t) => {
  await t.step("resolves at once when the condition already holds", async () => {
    let checks = 0;
    await waitUntil(() => ++checks > 0, { what: "x" });
    assert.equal(checks, 1);
  });

  await t.step("resolves once the event happened, checking again meanwhile", async () => {
    let done = false;
    let checks = 0;
    queueMicrotask(() => setTimeout(() => done = true, 0));
    await waitUntil(() => (checks++, done), { what: "the flag", intervalMs: 1 });
    assert.ok(done);
    assert.ok(checks >= 2);
  });

  await t.step("an async condition is awaited", async () => {
    await waitUntil(() => Promise.resolve(true), { what: "x" });
  });

  await t.step("rejects naming what it waited for when the condition stays false", async () => {
    await assert.rejects(
      waitUntil(() => false, { what: "the worker", timeoutMs: 20, intervalMs: 1 }),
      /^Error: Cannot wait for the worker: still false after 20 ms$/,
    );
  });

  await t.step("rethrows what the condition throws", async () => {
    await assert.rejects(
      waitUntil(() => {
        throw new Error("boom");
      }, { what: "x" }),
      /boom/,
    );
  });
});

Deno.test("nextTurn() runs the macrotasks already queued", async () => {
  let fired = false;
  setTimeout(() => fired = true, 0);
  await nextTurn();
  assert.ok(fired);
});
