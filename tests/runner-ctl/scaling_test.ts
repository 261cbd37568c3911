import assert from "node:assert/strict";
import { concurrentSteps } from "@svc/testing";
import { startController, waitFor, withSimulation } from "./_test_support.ts";

// Each scenario has its own simulation and controller process and mostly waits on them: they
// run three at a time, each still a named step.
const SCENARIOS: [string, () => Promise<void>][] = [
  ["a burst scales up to max and never past it, then back down to zero", async () => {
    await withSimulation({ github: { jobDurationMs: 1500 } }, async (sim) => {
      const ctl = startController(sim, { args: ["--max-runners", "3", "--incus-operations", "3"] });
      try {
        await waitFor("a session", () => sim.github.sessions.size === 1);
        const jobs = Array.from({ length: 7 }, () => sim.github.queueJob());
        await waitFor("three runners", () => sim.owned().length === 3);
        await waitFor("every job done", () => jobs.every((j) => j.state === "completed"), 120_000);
        await waitFor("scale down to zero", () => sim.owned().length === 0);
        assert.equal(sim.incus.peak, 3, "never more than max instances");
        assert.equal(sim.github.runners.size, 0, "no registration left behind");
        const runnersUsed = new Set(jobs.map((j) => j.runnerName));
        assert.equal(runnersUsed.size, 7, "one ephemeral runner per job");
      } finally {
        assert.equal(await ctl.stop(), 0);
      }
    });
  }],

  ["min_runners are kept warm and demand is added on top", async () => {
    await withSimulation({ github: { jobDurationMs: 1000 } }, async (sim) => {
      const ctl = startController(sim, { args: ["--min-runners", "2", "--max-runners", "3"] });
      try {
        await waitFor(
          "two warm runners",
          () => sim.owned().length === 2 && sim.owned().every((i) => i.status === "Ready"),
        );
        const creates = sim.incus.count("POST", /^\/1\.0\/instances$/);
        const job = sim.github.queueJob();
        await waitFor("the job to run", () => job.state !== "available");
        await waitFor("a third runner for min + 1 assigned", () => sim.owned().length === 3);
        await waitFor("the job to complete", () => job.state === "completed");
        await waitFor(
          "back to two warm",
          () => sim.owned().length === 2 && sim.owned().every((i) => i.status === "Ready"),
        );
        assert.ok(sim.incus.count("POST", /^\/1\.0\/instances$/) >= creates + 1);
        assert.ok(sim.incus.peak <= 3);
        assert.equal(sim.github.runners.size, 2, "the two warm registrations only");
      } finally {
        assert.equal(await ctl.stop(), 0);
      }
      assert.equal(sim.owned().length, 0, "shutdown removes idle runners");
      assert.equal(sim.github.runners.size, 0);
    });
  }],

  ["shutdown drains: idle runners removed, session deleted, exit 0", async () => {
    await withSimulation({}, async (sim) => {
      const ctl = startController(sim, {
        args: ["--min-runners", "2", "--max-runners", "2", "--shutdown-timeout", "10s"],
      });
      await waitFor(
        "two warm runners",
        () => sim.owned().length === 2 && sim.owned().every((i) => i.status === "Ready"),
      );
      const started = Date.now();
      assert.equal(await ctl.stop(), 0);
      assert.ok(Date.now() - started < 20_000, "within twice timeouts.shutdown");
      assert.equal(sim.owned().length, 0);
      assert.equal(sim.github.runners.size, 0);
      assert.equal(sim.github.sessions.size, 0);
      assert.ok(ctl.lines.some((l) => l.msg === "draining"));
    });
  }],

  ["a busy runner past the drain budget is left for the next start", async () => {
    await withSimulation({ github: { jobDurationMs: 60_000 } }, async (sim) => {
      const ctl = startController(sim, { args: ["--shutdown-timeout", "500ms"] });
      await waitFor("a session", () => sim.github.sessions.size === 1);
      const job = sim.github.queueJob();
      await waitFor("the job to run", () => job.state === "running");
      assert.equal(await ctl.stop(), 0);
      assert.equal(sim.owned().length, 1, "the busy VM keeps running its job");
      assert.ok(
        ctl.lines.some((l) =>
          l.msg === "runners left at shutdown; the next start adopts or removes them"
        ),
      );
    });
  }],

  ["a cancelled job's idle runner is scaled down (unregistered, then deleted)", async () => {
    await withSimulation({ incus: { agentDelayMs: 1500 } }, async (sim) => {
      const ctl = startController(sim, { args: ["--max-runners", "2"] });
      try {
        await waitFor("a session", () => sim.github.sessions.size === 1);
        const job = sim.github.queueJob();
        await waitFor("a runner for the job", () => sim.owned().length === 1);
        sim.github.cancelJob(job.runnerRequestId);
        await waitFor(
          "the idle runner to go",
          () => sim.owned().length === 0 && sim.github.runners.size === 0,
        );
        await waitFor(
          "the scale-down log line",
          () => ctl.lines.some((l) => l.msg === "runner removed" && l.reason === "scale down"),
        );
        assert.equal(job.state, "completed");
        assert.equal(job.runnerName, undefined, "no runner ever ran it");
      } finally {
        assert.equal(await ctl.stop(), 0);
      }
    });
  }],
];

Deno.test("runner-ctl scales up, down and drains (scenarios side by side)", async (t) => {
  await concurrentSteps(t, SCENARIOS, { concurrency: 3, name: ([name]) => name }, ([, fn]) => fn());
});
