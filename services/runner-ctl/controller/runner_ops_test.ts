import assert from "node:assert/strict";
import { silentLogger } from "@svc/shared/log";
import { githubSetup } from "../github/_test_support.ts";
import { ensureScaleSet } from "../github/scale_set.ts";
import { incusSetup } from "../incus/_test_support.ts";
import { preflight } from "../incus/preflight.ts";
import { TAG } from "../incus/instances.ts";
import { RunnerPool } from "./pool.ts";
import { removeRunner, startRunner } from "./runner_ops.ts";

Deno.test("startRunner and removeRunner against both fakes", async (t) => {
  const g = await githubSetup();
  const x = await incusSetup({ agentDelayMs: 10_000 });
  try {
    const { set } = await ensureScaleSet(g.actions, { name: "rs", runnerGroup: "default" });
    const template = await preflight(x.transport, {
      image: "runner",
      profiles: [],
      type: "virtual-machine",
    });
    const pool = new RunnerPool();
    const diag = await Deno.makeTempDir();
    const d = {
      actions: g.actions,
      instances: x.instances,
      template,
      pool,
      logger: silentLogger(),
      owner: "o1",
      scaleSet: "rs",
      diagnosticsDir: diag,
      now: Date.now,
    };
    await t.step("start: JIT registration, tagged VM, JIT key, started", async () => {
      const rec = pool.add({ name: "rs-aaaa0001", state: "creating" });
      await startRunner(d, rec, set.id);
      const inst = x.fake.instances.get("default/rs-aaaa0001")!;
      assert.equal(inst.status, "Running");
      assert.equal(inst.config[TAG.owner], "o1");
      assert.equal(inst.config[TAG.scaleSet], "rs");
      assert.equal(inst.config[TAG.runnerId], String(rec.runnerId));
      assert.equal(inst.config[TAG.jitConfig], g.fake.runners.get(rec.runnerId!)?.jit);
      assert.deepEqual(inst.profiles, [], "profiles are pinned into config and devices");
      assert.equal(inst.devices.root?.type, "disk");
      assert.equal(pool.runners.get(rec.name)?.state, "booting");
    });
    await t.step("remove with onlyIfIdle keeps a runner that runs a job", async () => {
      const rec = pool.runners.get("rs-aaaa0001")!;
      const s = await g.actions.createSession(set.id, "h");
      const job = g.fake.queueJob(set.id);
      await g.actions.acquireJobs(set.id, s.messageQueueAccessToken, [job.runnerRequestId]);
      g.fake.runnerConnect(g.fake.runners.get(rec.runnerId!)!.jit);
      assert.equal(job.state, "running");
      assert.equal(await removeRunner(d, rec, { reason: "scale down", onlyIfIdle: true }), "kept");
      assert.equal(pool.runners.get(rec.name)?.state, "busy");
      assert.ok(x.fake.instances.has("default/rs-aaaa0001"), "the VM is untouched");
      g.fake.completeJob(job.runnerRequestId);
      assert.equal(await removeRunner(d, rec, { reason: "job finished" }), "removed");
      assert.equal(x.fake.instances.has("default/rs-aaaa0001"), false);
      assert.equal(pool.runners.size, 0);
      const files = (await Array.fromAsync(Deno.readDir(diag))).map((e) => e.name);
      assert.equal(files.length, 1, "the console was captured before delete");
      await g.actions.deleteSession(set.id, s.sessionId);
    });
    await t.step("a failed create cleans up nothing it did not make", async () => {
      x.fake.faults.failNextCreate = "disk full";
      const rec = pool.add({ name: "rs-aaaa0002", state: "creating" });
      await assert.rejects(startRunner(d, rec, set.id), /disk full/);
      assert.ok(rec.runnerId !== undefined, "registered before the create");
      assert.equal(await removeRunner(d, rec, { reason: "start failed" }), "removed");
      assert.equal(g.fake.runners.has(rec.runnerId!), false, "its registration is removed");
    });
    await t.step(
      "a registration the service cannot remove yet keeps the instance for a later retry",
      async () => {
        const rec = pool.add({ name: "rs-aaaa0003", state: "creating" });
        await startRunner(d, rec, set.id);
        g.fake.faults.failNext(5, 503, /agents\/\d+$/);
        await assert.rejects(removeRunner(d, rec, { reason: "scale down" }), /remove a runner/);
        assert.ok(g.fake.runners.has(rec.runnerId!), "the registration is still there");
        assert.ok(x.fake.instances.has("default/rs-aaaa0003"), "the VM still carries its id");
        assert.ok(pool.runners.has(rec.name), "the record stays for the next pass");
        assert.equal(await removeRunner(d, rec, { reason: "retry" }), "removed");
        assert.equal(g.fake.runners.has(rec.runnerId!), false, "removed on the retry");
        assert.equal(x.fake.instances.has("default/rs-aaaa0003"), false);
      },
    );
    await Deno.remove(diag, { recursive: true });
  } finally {
    await x.close();
    await g.close();
  }
});
