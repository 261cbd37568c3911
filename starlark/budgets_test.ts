import assert from "node:assert/strict";
import { DEFAULT_BUDGETS, run, type RunResult } from "./mod.ts";
import { withDefaults } from "./budgets.ts";

const MiB = 1024 * 1024;

function codeOf(r: RunResult): string {
  return r.ok ? `ok (${JSON.stringify(r.value)?.slice(0, 80)})` : r.error.code;
}

Deno.test("default budgets fill in what the caller leaves out; Infinity turns one off", () => {
  assert.deepEqual(withDefaults(), { ...DEFAULT_BUDGETS });
  const b = withDefaults({ maxSteps: 5, maxAllocBytes: Infinity });
  assert.equal(b.maxSteps, 5);
  assert.equal(b.maxAllocBytes, Infinity);
  assert.equal(b.timeoutMs, DEFAULT_BUDGETS.timeoutMs);
  assert.ok(Object.isFrozen(DEFAULT_BUDGETS));
});

Deno.test("an infinite loop ends under the default budgets", async () => {
  const r = await run(
    "def main():\n  for x in range(1000000000):\n    for y in range(1000000000):\n      pass\n",
  );
  assert.ok(!r.ok && r.error.kind === "limit", codeOf(r));
  assert.ok(["max_steps", "timeout"].includes(r.error.code), r.error.code);
});

Deno.test("maxAllocBytes: a program within it passes, the same program above it fails", async (t) => {
  const src = "def main():\n  rows = [[i, i] for i in range(100000)]\n  return len(rows)\n";
  await t.step("64 MiB is enough for 100 000 small lists", async () => {
    assert.equal(codeOf(await run(src, { budgets: { maxAllocBytes: 64 * MiB } })), "ok (100000)");
  });
  await t.step("1 MiB is not: max_alloc, a limit error", async () => {
    const r = await run(src, { budgets: { maxAllocBytes: MiB } });
    assert.equal(codeOf(r), "max_alloc");
    assert.ok(!r.ok && r.error.kind === "limit");
    assert.match(!r.ok ? r.error.message : "", /allocation budget of 1048576 bytes exceeded/);
  });
  await t.step("a list costs more than converting a scalar result", async () => {
    const list = await run("def main():\n  return [1]\n", { budgets: { maxAllocBytes: 64 } });
    assert.equal(codeOf(list), "max_alloc");
    const int = await run("def main():\n  return 1 + 2\n", { budgets: { maxAllocBytes: 64 } });
    assert.equal(codeOf(int), "ok (3)");
    const none = await run("def main():\n  return 1 + 2\n", { budgets: { maxAllocBytes: 0 } });
    assert.equal(codeOf(none), "max_alloc");
  });
  await t.step("garbage counts too: the budget is cumulative", async () => {
    const churn = "def main():\n  for i in range(100000):\n    x = [i, i, i]\n  return 1\n";
    assert.equal(codeOf(await run(churn, { budgets: { maxAllocBytes: MiB } })), "max_alloc");
    assert.equal(codeOf(await run(churn, { budgets: { maxAllocBytes: 64 * MiB } })), "ok (1)");
  });
});
