import assert from "node:assert/strict";
import { concurrentSteps } from "@svc/testing";
import type { Simulation } from "../fakes/simulation.ts";
import { startController, waitFor, withSimulation } from "./_test_support.ts";

async function runJobs(sim: Simulation, n: number) {
  const jobs = Array.from({ length: n }, () => sim.github.queueJob());
  await waitFor("the jobs to complete", () => jobs.every((j) => j.state === "completed"), 120_000);
  return jobs;
}

// Each fault is switched on while the controller is live; the jobs queued around it must all
// run, and no runner (instance or registration) may be left behind.
type Fault = [string, (sim: Simulation) => void | Promise<void>, (sim: Simulation) => boolean];
const FAULTS: Fault[] = [
  ["5xx on the queue, acquire and JIT", (s) => {
    s.github.faults.failNext(3, 503, /^\/queue\//);
    s.github.faults.failNext(2, 500, /acquirejobs$/);
    s.github.faults.failNext(2, 502, /generatejitconfig$/);
  }, (s) => s.github.faults.pending() === 0],
  [
    "429 with Retry-After",
    (s) => s.github.faults.failNext(3, 429, /^\/(queue|tenant)\//, 0),
    (s) => s.github.faults.pending() === 0,
  ],
  ["BOM-prefixed bodies", (s) => void (s.github.faults.bom = true), () => true],
  [
    "401 on an expired queue token",
    (s) => s.github.expireQueueTokens(),
    (s) => s.github.count("PATCH", /sessions\/[\w-]+$/) >= 1,
  ],
  [
    "404 when refreshing an evicted session",
    (s) => s.github.evictSessions(),
    (s) => s.github.count("POST", /sessions$/) >= 2,
  ],
  [
    "admin token refused (401)",
    (s) => s.github.expireAdminTokens(),
    (s) => s.github.count("POST", /runner-registration$/) >= 2,
  ],
  ["scale set deleted by the service", async (s) => {
    s.github.deleteScaleSet();
    await waitFor("the scale set to be created again", () => s.github.scaleSets.size === 1);
  }, (s) => s.github.count("POST", /runnerscalesets$/) === 2],
  [
    "redelivery of an acknowledged message",
    (s) => s.github.redeliverLast(),
    (s) => !s.github.redeliveryPending(),
  ],
  ["empty messageQueueUrl", (s) => {
    s.github.faults.emptyQueueUrl = 1;
    s.github.evictSessions();
  }, (s) => s.github.faults.emptyQueueUrl === 0],
  ["409 stale session", (s) => {
    s.github.faults.staleSessionAttempts = 2;
    s.github.evictSessions();
  }, (s) => s.github.faults.staleSessionAttempts === 0],
  ["the no-wake long poll", (s) => void (s.github.faults.noWake = true), () => true],
  ["Incus create failing inside its operation", (s) => {
    s.incus.faults.failNextCreate = "Failed creating instance record: disk full";
  }, (s) => s.incus.faults.failNextCreate === ""],
  ["Incus delete failing once", (s) => {
    s.incus.faults.failNextDelete = "Failed deleting instance: busy";
  }, (s) => s.incus.faults.failNextDelete === ""],
];

Deno.test("every fault switch is survived without losing a runner or a job", async (t) => {
  // Each fault has its own simulation and controller process, and a step mostly waits on them:
  // four at a time keep every case while cutting the file's wall time.
  const options = { concurrency: 4, name: ([name]: Fault) => name };
  await concurrentSteps(t, FAULTS, options, async ([, inject, fired]) => {
    await withSimulation({ github: { jobDurationMs: 200 } }, async (sim) => {
      const ctl = startController(sim, {
        args: ["--max-runners", "2"],
        env: { RUNNER_CTL_GITHUB_MESSAGE_POLL_TIMEOUT: "5s" },
      });
      try {
        await waitFor("a session", () => sim.github.sessions.size === 1);
        await runJobs(sim, 1);
        await inject(sim);
        await runJobs(sim, 3);
        await waitFor(
          "every runner removed",
          () => sim.owned().length === 0 && sim.github.runners.size === 0,
          60_000,
        );
      } finally {
        assert.equal(await ctl.stop(), 0, ctl.stderr());
      }
      assert.ok(fired(sim), "the fault was delivered");
      assert.ok(sim.incus.peak <= 2);
      assert.ok(ctl.lines.every((l) => l.msg !== "NOT JSON"));
      assert.ok(!JSON.stringify(ctl.lines).includes("ghp_simulation_token"), "token logged");
    });
  });
});
