import assert from "node:assert/strict";
import { CapabilityRegistry } from "../capabilities/registry.ts";
import { t } from "../capabilities/schema.ts";
import { resolveLimits } from "../limits.ts";
import { createExecutePool } from "./server.ts";
import { connect, valueOf } from "./_test_support.ts";
import { main } from "./_execute_test_support.ts";
import { waitUntil } from "@svc/testing";

Deno.test("execute: a free worker goes to the caller served least recently, not to a flood", async () => {
  const entered: string[] = [];
  let open!: () => void;
  const gate = new Promise<void>((resolve) => open = resolve);
  const registry = new CapabilityRegistry();
  registry.register({
    name: "gate.wait",
    summary: "waits for the test",
    output: t.fields({ ok: t.bool() }),
    handler: async (_args, { subject }) => {
      entered.push(subject.id);
      await gate;
      return { ok: true };
    },
  });
  const limits = resolveLimits({ maxConcurrentExecutions: 1, executionQueueMs: 120_000 });
  limits.maxExecutionMs = 120_000;
  const pool = createExecutePool(limits);
  const mallory = await connect({ registry, limits, pool, resolver: () => ({ id: "mallory" }) });
  const alice = await connect({ registry, limits, pool, resolver: () => ({ id: "alice" }) });
  const source = main("return gate.wait()");
  try {
    const calls = [mallory.call("execute", { source })];
    await waitUntil(() => entered.length > 0, { what: "the first call to hold the worker" });
    for (let i = 0; i < 3; i++) calls.push(mallory.call("execute", { source }));
    await waitUntil(() => pool.waiting >= 3, { what: "three queued calls" });
    calls.push(alice.call("execute", { source }));
    await waitUntil(() => pool.waiting >= 4, { what: "four queued calls" });
    open();
    for (const r of await Promise.all(calls)) {
      assert.deepEqual(valueOf(r), { result: { ok: true } });
    }
    assert.deepEqual(entered, ["mallory", "alice", "mallory", "mallory", "mallory"]);
  } finally {
    await mallory.close();
    await alice.close();
    pool.close();
  }
});
