import assert from "node:assert/strict";
import { desiredRunners, runnerName, RunnerPool } from "./pool.ts";

Deno.test("desiredRunners keeps min warm on top of demand, never above max", () => {
  assert.equal(desiredRunners(0, 1, 0), 0);
  assert.equal(desiredRunners(0, 3, 2), 2);
  assert.equal(desiredRunners(1, 3, 0), 1);
  assert.equal(desiredRunners(1, 3, 1), 2);
  assert.equal(desiredRunners(1, 3, 2), 3);
  assert.equal(desiredRunners(1, 3, 3), 3);
  assert.equal(desiredRunners(1, 3, 50), 3);
  assert.equal(desiredRunners(2, 2, 0), 2);
  assert.equal(desiredRunners(0, 0, 5), 0);
  assert.equal(desiredRunners(0, 2, -1), 0);
});

Deno.test("desiredRunners stays within [min, max] whatever the statistics say", () => {
  for (const jobs of [NaN, -Infinity, "5", null, undefined, {}, "1e9", 1.5] as unknown[]) {
    const desired = desiredRunners(1, 3, jobs as number);
    assert.ok(desired >= 1 && desired <= 3, `${String(jobs)} gave ${desired}`);
  }
  assert.equal(desiredRunners(1, 3, "5" as unknown as number), 1, "a string is no count");
  assert.equal(desiredRunners(1, 3, NaN), 1);
  assert.equal(desiredRunners(1, 3, Infinity), 3);
  assert.equal(desiredRunners(0, 3, 1.5), 1);
});

Deno.test("runnerName follows Incus hostname rules", () => {
  const valid = /^(?!-)(?!\d+$)[a-z0-9-]{1,63}(?<!-)$/;
  for (const s of ["linux-x64", "Linux X64", "--", "é", "a".repeat(80), "123", "gpu_box.2"]) {
    const n = runnerName(s, () => "0a1b2c3d");
    assert.match(n, valid, n);
  }
  assert.equal(runnerName("Linux X64", () => "ab"), "linux-x64-ab");
  assert.equal(runnerName("%%", () => "ab"), "runner-ab");
});

Deno.test("RunnerPool counts active and total runners by state", () => {
  let now = 0;
  const p = new RunnerPool(() => now);
  p.add({ name: "a", state: "creating" });
  p.add({ name: "b", state: "idle" });
  p.add({ name: "c", state: "done" });
  now = 5;
  p.set("a", "booting", { startedAt: 5 });
  assert.equal(p.runners.get("a")?.since, 5);
  assert.equal(p.active(), 2);
  assert.equal(p.total(), 3);
  assert.deepEqual(p.inState("done").map((r) => r.name), ["c"]);
  assert.equal(p.summary().booting, 1);
  p.set("nope", "idle");
  assert.equal(p.total(), 3);
});
