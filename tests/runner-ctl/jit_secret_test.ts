import assert from "node:assert/strict";
import { startController, waitFor, withSimulation } from "./_test_support.ts";

const JIT_KEY = "user.runner-ctl-jitconfig";

Deno.test("a runner that goes busy before Ready has its JIT config blanked too", async () => {
  const jits: string[] = [];
  let connect: (jit: string) => unknown = () => undefined;
  await withSimulation({
    // The guest's runner connects (and takes the job) but never reports Ready to Incus.
    incus: {
      onGuestBoot: (_inst, jit) => {
        jits.push(jit);
        connect(jit);
        return false;
      },
    },
  }, async (sim) => {
    connect = (jit) => sim.github.runnerConnect(jit);
    const ctl = startController(sim);
    try {
      await waitFor("a session", () => sim.github.sessions.size === 1);
      const job = sim.github.queueJob();
      await waitFor("the job to run", () => job.state === "running");
      const inst = sim.owned().find((i) => i.name === job.runnerName)!;
      assert.ok(inst, "the job runs on one of our instances");
      await waitFor(
        "the JIT config blanked while the job runs",
        () => !inst.config[JIT_KEY],
        30_000,
      );
      assert.equal(job.state, "running");
      sim.github.completeJob(job.runnerRequestId);
      await waitFor("the runner removed", () => sim.owned().length === 0);
    } finally {
      assert.equal(await ctl.stop(), 0);
    }
    const out = JSON.stringify(ctl.lines) + ctl.stderr();
    assert.ok(jits.length > 0);
    for (const jit of jits) assert.equal(out.includes(jit), false, "no JIT config in any log line");
    assert.equal(out.includes("ghp_simulation_token"), false, "no token in any log line");
  });
});
