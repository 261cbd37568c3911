import assert from "node:assert/strict";
import { startController, waitFor, withSimulation } from "./_test_support.ts";

Deno.test("a crash mid-flight: the next start adopts running runners and sweeps orphans", async () => {
  await withSimulation({}, async (sim) => {
    const first = startController(sim, { args: ["--max-runners", "3"] });
    await waitFor("a session", () => sim.github.sessions.size === 1);
    const jobs = [sim.github.queueJob(), sim.github.queueJob()];
    await waitFor("both jobs running", () => jobs.every((j) => j.state === "running"));
    await first.stop("SIGKILL"); // no drain, the session is left behind
    // An orphan: tagged with our owner, but its registration is gone.
    sim.incus.addInstance({
      name: "linux-x64-deadbeef",
      config: {
        "user.runner-ctl-owner": "sim-host",
        "user.runner-ctl-scale-set": "linux-x64",
        "user.runner-ctl-runner-id": "999",
      },
    });
    // Someone else's instance is never touched.
    sim.incus.addInstance({ name: "other", config: { "user.runner-ctl-owner": "someone-else" } });
    const creates = sim.incus.count("POST", /^\/1\.0\/instances$/);
    const second = startController(sim, { args: ["--max-runners", "3"] });
    try {
      // The stale session answers 409 until the service expires it.
      await waitFor(
        "a 409",
        () => second.lines.some((l) => /another message session/.test(String(l.msg))),
      );
      sim.github.evictSessions();
      // The jobs end only once both runners are adopted (no timing race with a slow start).
      await waitFor(
        "both runners adopted",
        () => second.lines.filter((l) => l.msg === "runner adopted").length === 2,
      );
      for (const j of jobs) sim.github.completeJob(j.runnerRequestId);
      await waitFor("the jobs to complete", () => jobs.every((j) => j.state === "completed"));
      await waitFor("all runners removed", () => sim.owned().length === 0, 60_000);
      const adopted = second.lines.filter((l) => l.msg === "runner adopted").map((l) => l.runner);
      assert.deepEqual(adopted.sort(), jobs.map((j) => j.runnerName).sort());
      // The log line comes through a pipe, after the deletion the fake already shows.
      await waitFor(
        "the orphan sweep's log line",
        () =>
          second.lines.some((l) =>
            l.msg === "runner removed" && l.runner === "linux-x64-deadbeef" &&
            l.reason === "orphan sweep"
          ),
      );
      assert.equal(
        sim.incus.count("POST", /^\/1\.0\/instances$/),
        creates,
        "nothing new was needed",
      );
      assert.ok(sim.incus.instances.has("default/other"));
      assert.ok(sim.incus.peak <= 4, "3 runners + the foreign instance");
    } finally {
      assert.equal(await second.stop(), 0);
    }
  });
});
