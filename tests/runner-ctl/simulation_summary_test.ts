/**
 * The dev simulation's summary line: jobs queued, started, running, waiting and failed, and the
 * runners by state, counted from the fakes as a job stream moves through them.
 */
import assert from "node:assert/strict";
import { summarize, summaryLine } from "../fakes/simulation_summary.ts";
import { withSimulation } from "./_test_support.ts";

Deno.test("the summary counts jobs and runners as they move", async () => {
  await withSimulation({ github: { sendJobAvailable: false } }, (sim) => {
    const none = summarize(sim);
    assert.deepEqual(none, {
      jobs: { queued: 0, started: 0, running: 0, waiting: 0, failed: 0 },
      runners: { booting: 0, idle: 0, busy: 0, stopped: 0 },
    });
    assert.equal(
      summaryLine(none),
      "[sim] jobs: 0 queued, 0 started, 0 running, 0 waiting, 0 failed | runners: 0 booting, " +
        "0 idle, 0 busy, 0 stopped",
    );
    // Our VMs as the controller leaves them: booting, Ready (one of them busy), stopped.
    const vm = (name: string, status: "Running" | "Ready" | "Stopped") =>
      sim.incus.addInstance({ name, status, config: { "user.runner-ctl-owner": "sim-host" } });
    vm("r-boot", "Running");
    vm("r-idle", "Ready");
    vm("r-busy", "Ready");
    vm("r-gone", "Stopped");
    sim.incus.addInstance({ name: "not-ours", status: "Ready" }); // another owner: not counted
    sim.github.runners.set(1, {
      id: 1,
      name: "r-busy",
      scaleSetId: 1,
      jit: "x",
      online: true,
      jobRequestId: 1,
    });
    // No scale set yet: the jobs stay available until the test moves them.
    const jobs = [sim.github.queueJob(), sim.github.queueJob(), sim.github.queueJob()];
    jobs[0].state = "running";
    jobs[0].runnerAssignTime = new Date().toISOString();
    jobs[1].state = "completed";
    jobs[1].runnerAssignTime = new Date().toISOString();
    jobs[1].result = "failed";
    const s = summarize(sim);
    assert.deepEqual(s, {
      jobs: { queued: 3, started: 2, running: 1, waiting: 1, failed: 1 },
      runners: { booting: 1, idle: 1, busy: 1, stopped: 1 },
    });
    assert.equal(
      summaryLine(s),
      "[sim] jobs: 3 queued, 2 started, 1 running, 1 waiting, 1 failed | runners: 1 booting, " +
        "1 idle, 1 busy, 1 stopped",
    );
    return Promise.resolve();
  });
});
