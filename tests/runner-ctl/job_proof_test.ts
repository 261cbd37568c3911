/**
 * Job proofs end to end: runner-ctl (a real process) runs a job from the fake GitHub service on
 * the fake Incus; the proof it commits to the instance (`user.runner-ctl-job-proof`) verifies with
 * `runner-ctl proof verify` and the enrolled public key (both made by openssl); a redelivered
 * JobStarted does not produce a second, conflicting proof.
 */
import assert from "node:assert/strict";
import { runCommand } from "@svc/testing";
import { startController, waitFor, withSimulation } from "./_test_support.ts";

const MAIN = new URL("../../services/runner-ctl/main.ts", import.meta.url).pathname;
const KEY = "user.runner-ctl-job-proof";

function run(cmd: string, args: string[], stdin?: string) {
  return runCommand(cmd, args, { stdin });
}

Deno.test("a job's proof verifies with the enrolled key; a redelivery keeps it", async () => {
  await withSimulation({ github: { jobDurationMs: 6000 } }, async (sim) => {
    const privatePem = (await run("openssl", ["genpkey", "-algorithm", "ed25519"])).stdout;
    const publicPem = (await run("openssl", ["pkey", "-pubout"], privatePem)).stdout;
    const keyFile = `${sim.dir}/job-proof-key.pem`;
    const pubFile = `${sim.dir}/job-proof-key.pub`;
    await Deno.writeTextFile(keyFile, privatePem);
    await Deno.writeTextFile(pubFile, publicPem);
    const ctl = startController(sim, {
      args: ["--max-runners", "2"],
      env: {
        RUNNER_CTL_JOB_PROOF_HOST_ID: "host-e2e",
        RUNNER_CTL_JOB_PROOF_SIGNING_KEY_FILE: keyFile,
      },
    });
    try {
      await waitFor("a session", () => sim.github.sessions.size === 1);
      const job = sim.github.queueJob();
      await waitFor("a committed proof", () => sim.owned().some((i) => i.config[KEY]));
      const inst = sim.owned().find((i) => i.config[KEY])!;
      const envelope = inst.config[KEY];
      const proofFile = `${sim.dir}/proof.json`;
      await Deno.writeTextFile(proofFile, envelope);
      const verified = await run(Deno.execPath(), [
        "run",
        "--allow-read",
        MAIN,
        "proof",
        "verify",
        proofFile,
        "--public-key",
        pubFile,
        "--expected-host-id",
        "host-e2e",
      ]);
      assert.equal(verified.code, 0, verified.stderr);
      const payload = JSON.parse(verified.stdout);
      assert.equal(payload.version, 1);
      assert.equal(payload.host_id, "host-e2e");
      assert.deepEqual(payload.instance, { project: "default", name: inst.name });
      assert.equal(payload.runner.name, inst.name);
      assert.equal(payload.scale_set.name, sim.scaleSet);
      assert.equal(payload.job.runner_request_id, job.runnerRequestId);
      assert.equal(payload.job.repository, "org/repo");
      // Another host id is refused with nothing on stdout.
      const wrongHost = await run(Deno.execPath(), [
        "run",
        "--allow-read",
        MAIN,
        "proof",
        "verify",
        proofFile,
        "--public-key",
        pubFile,
        "--expected-host-id",
        "host-other",
      ]);
      assert.equal(wrongHost.code, 1);
      assert.equal(wrongHost.stdout, "");

      // Redeliver the acknowledged JobStarted: the committed proof stays byte-identical.
      sim.github.redeliverLast();
      await waitFor("the redelivery to be polled", () => !sim.github.redeliveryPending());
      // real clock: a redelivered JobStarted must change nothing: give the controller time to (wrongly) act
      await new Promise((r) => setTimeout(r, 1000));
      if (sim.incus.instances.has(inst.name)) {
        assert.equal(sim.incus.instances.get(inst.name)!.config[KEY], envelope);
      }
      const starts = ctl.lines.filter((l) => l.msg === "job started" && l.runner === inst.name);
      assert.equal(starts.length, 2, "the JobStarted was delivered twice");
      const committed = ctl.lines.filter((l) => l.msg === "job proof committed");
      assert.equal(committed.length, 1, "one proof for one job");
      await waitFor("the job to complete", () => job.state === "completed", 60_000);
      assert.ok(!JSON.stringify(ctl.lines).includes("PRIVATE KEY"), "no key in the logs");
    } finally {
      assert.equal(await ctl.stop(), 0);
    }
  });
});

Deno.test("job proofs: setting only one of host id and key file fails startup", async () => {
  await withSimulation({}, async (sim) => {
    for (
      const [env, field] of [
        [{ RUNNER_CTL_JOB_PROOF_HOST_ID: "h" }, "job_proof.signing_key_file"],
        [{ RUNNER_CTL_JOB_PROOF_SIGNING_KEY_FILE: "/etc/hostname" }, "job_proof.host_id"],
      ] as const
    ) {
      const ctl = startController(sim, { env });
      assert.equal(await ctl.exited, 1);
      assert.match(ctl.stderr(), new RegExp(field.replace(".", "\\.")));
    }
  });
});
