import assert from "node:assert/strict";
import { startController, waitFor, withSimulation } from "./_test_support.ts";

Deno.test("runner-ctl runs a job end to end and shuts down cleanly", async () => {
  await withSimulation({ github: { jobDurationMs: 300 } }, async (sim) => {
    const ctl = startController(sim, { args: ["--max-runners", "2"] });
    try {
      await waitFor("a session", () => sim.github.sessions.size === 1);
      const job = sim.github.queueJob();
      await waitFor("the job to complete", () => job.state === "completed");
      await waitFor("the runner to be removed", () => sim.owned().length === 0);
    } finally {
      assert.equal(await ctl.stop(), 0, ctl.stderr());
    }
    assert.equal(sim.github.sessions.size, 0, "session deleted");
    assert.ok(ctl.lines.every((l) => l.msg !== "NOT JSON"));
  });
});
