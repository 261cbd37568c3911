import assert from "node:assert/strict";
import { startController, waitFor, withSimulation } from "./_test_support.ts";
import { runShipped } from "../_shipped.ts";

Deno.test("--version prints development build metadata and exits 0", async () => {
  await withSimulation({}, async (sim) => {
    const p = startController(sim, { args: ["--version"] });
    assert.equal(await p.exited, 0);
  });
  const out = await runShipped("runner-ctl", { args: ["--version"] });
  assert.equal(out.code, 0, out.stderr);
  assert.equal(out.stdout, "runner-ctl dev (commit none, built unknown)\n");
});

Deno.test("startup failures exit 1 with the error on stderr", async (t) => {
  const cases: [string, Record<string, string>, string[], RegExp][] = [
    ["bad flag value", {}, ["--max-runners", "many"], /capacity.max_runners/],
    [
      "missing explicit config",
      {},
      ["--config", "/nonexistent.yaml"],
      /Cannot read configuration file/,
    ],
    [
      "two credentials",
      { RUNNER_CTL_GITHUB_TOKEN_FILE: "/etc/hostname" },
      [],
      /more than one GitHub credential/,
    ],
    [
      "missing image (preflight)",
      { RUNNER_CTL_INCUS_IMAGE: "nope" },
      [],
      /image alias or fingerprint does not exist/,
    ],
    [
      "missing project (preflight)",
      { RUNNER_CTL_INCUS_PROJECT: "nope" },
      [],
      /project does not exist/,
    ],
    [
      "no Incus socket",
      { RUNNER_CTL_INCUS_SOCKET: "/nonexistent.socket" },
      [],
      /Cannot reach Incus/,
    ],
  ];
  for (const [name, env, args, pattern] of cases) {
    await t.step(name, async () => {
      await withSimulation({}, async (sim) => {
        const p = startController(sim, { args, env });
        assert.equal(await p.exited, 1);
        assert.match(p.stderr(), pattern);
        assert.ok(!p.stderr().includes("ghp_simulation_token"));
      });
    });
  }
  await t.step("a pre-existing scale set with self-update enabled", async () => {
    await withSimulation({}, async (sim) => {
      sim.github.addScaleSet({ name: "linux-x64", disableUpdate: false });
      const p = startController(sim);
      assert.equal(await p.exited, 1);
      assert.match(p.stderr(), /runner self-update is not disabled/);
      assert.ok(
        p.lines.some((l) => JSON.stringify(l).includes("runner self-update is not disabled")),
        JSON.stringify(p.lines),
      );
    });
  });
});

Deno.test("bootstrap timeout: the stuck VM is removed with its console captured", async () => {
  let stuck = 0;
  await withSimulation({
    incus: { onGuestBoot: () => stuck++ > 0 }, // the first guest never reports Ready
    github: { jobDurationMs: 200 },
  }, async (sim) => {
    const diag = `${sim.dir}/diagnostics`;
    const ctl = startController(sim, {
      env: { RUNNER_CTL_INCUS_BOOTSTRAP_TIMEOUT: "1s", RUNNER_CTL_INCUS_DIAGNOSTICS_DIR: diag },
    });
    try {
      await waitFor("a session", () => sim.github.sessions.size === 1);
      const job = sim.github.queueJob();
      await waitFor("the job to complete on a second runner", () => job.state === "completed");
      await waitFor("all removed", () => sim.owned().length === 0);
      await waitFor(
        "the removal's log line",
        () => ctl.lines.some((l) => l.reason === "bootstrap timed out"),
      );
      const removed = ctl.lines.find((l) => l.reason === "bootstrap timed out");
      assert.ok(removed, "the stuck runner was removed for its bootstrap timeout");
      const files = (await Array.fromAsync(Deno.readDir(diag))).map((e) => e.name);
      assert.ok(files.some((f) => f.startsWith(`${removed.runner}-`)), files.join(","));
      for (const f of files) assert.equal((await Deno.stat(`${diag}/${f}`)).mode! & 0o777, 0o600);
      const text = await Deno.readTextFile(
        `${diag}/${files.find((f) => f.startsWith(`${removed.runner}-`))}`,
      );
      assert.match(text, /Linux version/);
    } finally {
      assert.equal(await ctl.stop(), 0);
    }
  });
});
