/**
 * Image rotation against the fake Incus and the fake scale-set service, the controller in process
 * on an injected clock: `incus.image` as an alias is resolved again every
 * `incus.image_refresh_interval` (not 1 ms before, at it) and after a create fails; when the
 * alias moves, idle runners are replaced, a busy one finishes its job on the old image, and new
 * ones come from the new image. An image that disappears is one error naming the setting, a
 * failure of kind `image_missing` per check (no create meanwhile), and creates resume when it is
 * back. A pinned fingerprint never follows the alias.
 */
import assert from "node:assert/strict";
import type { Simulation } from "../fakes/simulation.ts";
import { startSimulation } from "../fakes/simulation.ts";
import { type ClockedController, clockedController, waitFor } from "./_test_support.ts";
import { failureWaitMs } from "../../services/runner-ctl/controller/failure_backoff.ts";

const A = "a".repeat(64);
const B = "b".repeat(64);
const VM = "virtual-machine" as const;
const REFRESH_MS = 60_000;
const T0 = 1_000_000; // the clock of clockedController at its start
const retry = { initialMs: 1000, maximumMs: 8000 };

async function scenario(
  o: { image?: string; minRunners?: number; maxRunners?: number },
  body: (x: ClockedController & { sim: Simulation }) => Promise<void>,
) {
  const sim = await startSimulation({
    github: { sendJobAvailable: false },
    incus: { agentDelayMs: 5 },
  });
  const x = await clockedController(sim, {
    minRunners: o.minRunners ?? 1,
    maxRunners: o.maxRunners ?? 2,
    bootstrapTimeoutMs: 600_000,
    retry,
    image: o.image,
    imageRefreshMs: REFRESH_MS,
  });
  try {
    await body({ ...x, sim });
  } finally {
    x.close();
    await sim.close();
  }
}

/** The image of every instance create the fake has seen, in order. */
function createdFrom(sim: Simulation): string[] {
  return sim.incus.seen.filter((r) => r.method === "POST" && r.path === "/1.0/instances")
    .map((r) => ((r.body as { source: { fingerprint: string } }).source.fingerprint));
}

function logs(x: ClockedController, msg: string | RegExp) {
  return x.lines.filter((l) => typeof msg === "string" ? l.msg === msg : msg.test(String(l.msg)));
}

/** Runs passes at `t` until the named runners are idle (their guests reported Ready). */
async function untilIdle(x: ClockedController & { sim: Simulation }, t: number, n: number) {
  await waitFor(
    `${n} Ready guests`,
    () => x.sim.owned().filter((i) => i.status === "Ready").length === n,
    10_000,
  );
  await x.at(t);
  assert.equal(x.ctl.pool.inState("idle").length, n);
}

const CHANGED = "incus.image now names another image; new runners use it";

Deno.test("the alias moves mid-run: idle runners replaced, a busy one finishes on the old image, new ones on the new", async () => {
  await scenario({}, async (x) => {
    await x.at(T0);
    await untilIdle(x, T0 + 1, 1);
    x.ctl.onStatistics({ totalAssignedJobs: 1 } as never); // desired: min(2, 1 + 1)
    await x.at(T0 + 2);
    await untilIdle(x, T0 + 3, 2);
    assert.deepEqual(createdFrom(x.sim), [A, A]);
    // One runner takes a job (GitHub reports it busy).
    const job = x.sim.github.queueJob();
    const busy = job.runnerName!;
    assert.ok(busy, "the job is dispatched");
    x.ctl.onJob({
      messageType: "JobStarted",
      runnerRequestId: job.runnerRequestId,
      runnerName: busy,
      jobId: job.jobId,
    });
    const idle = x.ctl.pool.inState("idle")[0].name;
    // The alias moves to a new image and the old one is deleted (what --auto-update does).
    x.sim.incus.images.set("runner", { fingerprint: B, type: VM });
    await x.at(T0 + REFRESH_MS - 1);
    assert.equal(logs(x, CHANGED).length, 0, "not resolved before the interval");
    assert.ok(x.sim.incus.instances.has(`default/${idle}`), "nothing replaced yet");
    await x.at(T0 + REFRESH_MS);
    const changed = logs(x, CHANGED);
    assert.equal(changed.length, 1);
    assert.deepEqual([changed[0].image, changed[0].previous, changed[0].replacing], [B, A, 1]);
    assert.ok(!x.sim.incus.instances.has(`default/${idle}`), "the idle runner is replaced");
    const kept = x.sim.incus.instances.get(`default/${busy}`);
    assert.equal(kept?.status, "Ready", "the busy runner is untouched");
    assert.equal(kept?.config["user.runner-ctl-image"], A);
    assert.equal(x.ctl.pool.runners.get(busy)?.state, "busy");
    await x.at(T0 + REFRESH_MS + 1);
    assert.deepEqual(createdFrom(x.sim), [A, A, B], "its replacement comes from the new image");
    // The busy runner's job ends: its VM powers off and is removed; the next one is new too.
    x.sim.github.completeJob(job.runnerRequestId);
    await x.at(T0 + REFRESH_MS + 2);
    assert.ok(!x.sim.incus.instances.has(`default/${busy}`));
    await x.at(T0 + REFRESH_MS + 3);
    assert.deepEqual(createdFrom(x.sim), [A, A, B, B]);
    for (const i of x.sim.owned()) assert.equal(i.config["user.runner-ctl-image"], B);
    // Later checks find the same image: no second record.
    await x.at(T0 + 2 * REFRESH_MS);
    assert.equal(logs(x, CHANGED).length, 1);
    assert.equal(x.ctl.backoff.failures, 0);
  });
});

Deno.test("a create that fails because the image is gone resolves the alias at once (not after the interval)", async () => {
  await scenario({ minRunners: 1, maxRunners: 1 }, async (x) => {
    x.sim.incus.images.set("runner", { fingerprint: B, type: VM }); // before the first create
    await x.at(T0);
    assert.deepEqual(createdFrom(x.sim), [A], "the first create still names the old image");
    const failed = logs(x, "runner failed before taking a job");
    assert.equal(failed.length, 1);
    assert.equal(failed[0].kind, "start_failed");
    assert.match(String(failed[0].error), /Image not provided/);
    await x.at(T0 + 1); // the next pass resolves again, well before the interval
    assert.equal(logs(x, CHANGED).length, 1);
    await x.at(T0 + retry.initialMs - 1);
    assert.equal(createdFrom(x.sim).length, 1, "the failure backoff still holds");
    await x.at(T0 + retry.initialMs);
    assert.deepEqual(createdFrom(x.sim), [A, B]);
    await untilIdle(x, T0 + retry.initialMs + 1, 1);
    assert.equal(x.ctl.backoff.failures, 0, "Ready resets the backoff");
  });
});

Deno.test("the image disappears: one error naming incus.image, kind image_missing, no create; recovery when it comes back", async () => {
  await scenario({ minRunners: 1, maxRunners: 2 }, async (x) => {
    await x.at(T0);
    await untilIdle(x, T0 + 1, 1);
    const runner = x.ctl.pool.inState("idle")[0].name;
    x.sim.incus.images.delete("runner");
    await x.at(T0 + REFRESH_MS);
    let errors = x.lines.filter((l) => l.level === "error");
    assert.equal(errors.length, 1);
    assert.equal(
      errors[0].msg,
      'incus.image "runner": the alias no longer names an image (import the image again under ' +
        "this alias, or change incus.image / RUNNER_CTL_INCUS_IMAGE)",
    );
    assert.deepEqual(
      [errors[0].setting, errors[0].kind, errors[0].consecutive_failures, errors[0].backoff_ms],
      ["incus.image", "image_missing", 1, 1000],
    );
    assert.ok(x.sim.incus.instances.has(`default/${runner}`), "the runner it has is kept");
    // A job is assigned: demand for a second runner, but no create while the image is gone.
    x.ctl.onStatistics({ totalAssignedJobs: 1 } as never);
    await x.at(T0 + REFRESH_MS + 1);
    assert.equal(x.sim.owned().length, 1);
    const creates = x.creates();
    assert.equal(creates, 1);
    // Checked again as the failure backoff allows (its low end here), never before; one error.
    const wait1 = failureWaitMs(retry, 1);
    const wait2 = failureWaitMs(retry, 2);
    const aliasReads = () => x.sim.incus.count("GET", /^\/1\.0\/images\/aliases\/runner$/);
    let reads = aliasReads();
    await x.at(T0 + REFRESH_MS + wait1 - 1);
    assert.equal(aliasReads(), reads, "no check before the backoff's wait");
    await x.at(T0 + REFRESH_MS + wait1);
    assert.equal(aliasReads(), reads + 1);
    const still = logs(x, "incus.image still names no image");
    assert.deepEqual([still.length, still[0].consecutive_failures, still[0].backoff_ms], [
      1,
      2,
      wait2,
    ]);
    errors = x.lines.filter((l) => l.level === "error");
    assert.equal(errors.length, 1, "one error per disappearance");
    assert.equal(x.creates(), creates, "no create while it is gone");
    // The image is back (same fingerprint): picked up at the next allowed check, creates resume.
    x.sim.incus.images.set("runner", { fingerprint: A, type: VM });
    reads = aliasReads();
    await x.at(T0 + REFRESH_MS + wait1 + wait2 - 1);
    assert.equal(aliasReads(), reads);
    assert.equal(x.creates(), creates);
    await x.at(T0 + REFRESH_MS + wait1 + wait2);
    assert.equal(logs(x, "incus.image names an image again").length, 1);
    assert.equal(x.creates(), creates + 1);
    assert.equal(createdFrom(x.sim).at(-1), A);
    assert.equal(x.ctl.backoff.failures, 0);
  });
});

Deno.test("a pinned fingerprint never follows the alias, and its disappearance names incus.image", async () => {
  await scenario({ image: A, minRunners: 1, maxRunners: 2 }, async (x) => {
    await x.at(T0);
    await untilIdle(x, T0 + 1, 1);
    const runner = x.ctl.pool.inState("idle")[0].name;
    // The alias moves; the pinned image still exists under another alias.
    x.sim.incus.images.set("runner", { fingerprint: B, type: VM });
    x.sim.incus.images.set("old", { fingerprint: A, type: VM });
    const aliasReads = x.sim.incus.count("GET", /^\/1\.0\/images\/aliases\//);
    await x.at(T0 + REFRESH_MS);
    assert.equal(logs(x, CHANGED).length, 0);
    assert.ok(x.sim.incus.instances.has(`default/${runner}`), "its runner is not replaced");
    assert.equal(x.sim.incus.count("GET", new RegExp(`^/1\\.0/images/${A}$`)) >= 2, true);
    assert.equal(
      x.sim.incus.count("GET", /^\/1\.0\/images\/aliases\//),
      aliasReads,
      "a pinned image is never looked up as an alias again",
    );
    x.ctl.onStatistics({ totalAssignedJobs: 1 } as never); // a second runner: still the pinned one
    await x.at(T0 + REFRESH_MS + 1);
    assert.deepEqual(createdFrom(x.sim), [A, A]);
    // The pinned image is deleted: one error, and it does not fall back to the alias.
    x.sim.incus.images.delete("old");
    await x.at(T0 + 2 * REFRESH_MS);
    const errors = x.lines.filter((l) => l.level === "error");
    assert.equal(errors.length, 1);
    assert.equal(
      errors[0].msg,
      `incus.image "${A}": the pinned image no longer exists (import it again, or change ` +
        "incus.image / RUNNER_CTL_INCUS_IMAGE)",
    );
    assert.equal(errors[0].kind, "image_missing");
  });
});
