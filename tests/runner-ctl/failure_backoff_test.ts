/**
 * Runners that fail before they take a job: scripted guests on the fake Incus (never Ready, or
 * powering off at every boot), the controller in process on an injected clock. Creates must be
 * spaced by the failure backoff to the millisecond (none 1 ms before the wait is over, one at
 * it), the waits must start at `retry.initial`, double, and never pass `retry.maximum`; one
 * error after five failures in a row names the likely cause and the console capture; a runner
 * that reaches Ready resets the backoff.
 */
import assert from "node:assert/strict";
import type { Simulation } from "../fakes/simulation.ts";
import type { FakeInstance } from "../fakes/incus/fake_incus.ts";
import type { FakeGithubOptions } from "../fakes/github/fake_github.ts";
import {
  type ClockedController,
  clockedController,
  startController,
  waitFor,
  withSimulation,
} from "./_test_support.ts";
import { startSimulation } from "../fakes/simulation.ts";
import {
  ESCALATE_AFTER,
  failureWaitMs,
} from "../../services/runner-ctl/controller/failure_backoff.ts";

type Guest = "never-ready" | "power-off" | "healthy";
const retry = { initialMs: 1000, maximumMs: 8000 };
const BOOTSTRAP_MS = 2000;
const HIGH = () => 1 - 2 ** -53;
const LOW = () => 0;

async function scenario(
  o: { jitter: () => number; diagnostics?: boolean; github?: FakeGithubOptions },
  body: (
    x: ClockedController & { sim: Simulation; guest: (g: Guest) => void; dir: string },
  ) => Promise<void>,
) {
  let guest: Guest = "never-ready";
  const ref: { sim?: Simulation } = {};
  const sim = ref.sim = await startSimulation({
    github: o.github,
    incus: {
      agentDelayMs: 5,
      onGuestBoot: (inst: FakeInstance) => {
        if (guest === "power-off") ref.sim!.incus.powerOff(inst.name);
        return guest === "healthy";
      },
    },
  });
  const dir = await Deno.makeTempDir({ prefix: "runner-ctl-diag-" });
  const x = await clockedController(sim, {
    bootstrapTimeoutMs: BOOTSTRAP_MS,
    retry,
    jitter: o.jitter,
    diagnosticsDir: o.diagnostics ? dir : "",
  });
  try {
    await body({ ...x, sim, dir, guest: (g) => void (guest = g) });
  } finally {
    x.close();
    await sim.close();
    await Deno.remove(dir, { recursive: true });
  }
}

function failures(lines: Record<string, unknown>[]) {
  return lines.filter((l) => l.msg === "runner failed before taking a job");
}

/** The guest of the one runner has booted and started its runner (or tried to). */
function booted(sim: Simulation) {
  return () => sim.owned()[0]?.console.includes("runner: connecting") ?? false;
}

/**
 * Fails `n` runners in a row the way `kind` says and checks the spacing of the creates: for the
 * k-th failure at F with wait W, no create at F + W − 1, one at F + W.
 */
async function failInARow(
  x: ClockedController & { sim: Simulation },
  n: number,
  kind: "bootstrap_timeout" | "stopped_before_job",
  jitter: () => number,
  startK = 1,
) {
  const waits: number[] = [];
  let t = x.now();
  for (let k = startK; k < startK + n; k++) {
    const before = x.creates();
    await x.at(t);
    assert.equal(x.creates(), before + 1, `failure ${k}: the create is due at ${t}`);
    await waitFor("the guest to boot", booted(x.sim), 10_000);
    let failedAt: number;
    if (kind === "bootstrap_timeout") {
      await x.at(t + BOOTSTRAP_MS);
      assert.equal(failures(x.lines).length, k - 1, "not timed out at bootstrap_timeout");
      failedAt = t + BOOTSTRAP_MS + 1;
    } else {
      await waitFor("the power-off", () => x.sim.owned()[0]?.status === "Stopped", 10_000);
      failedAt = t;
    }
    await x.at(failedAt);
    const rec = failures(x.lines).at(-1)!;
    const wait = failureWaitMs(retry, k, jitter);
    assert.equal(rec.kind, kind);
    assert.equal(rec.consecutive_failures, k);
    assert.equal(rec.backoff_ms, wait);
    assert.equal(x.sim.owned().length, 0, "the failed runner is removed");
    assert.equal(x.sim.github.runners.size, 0, "and its registration");
    await x.at(failedAt + wait - 1);
    assert.equal(x.creates(), before + 1, `failure ${k}: no create before the wait (${wait})`);
    t = failedAt + wait;
    waits.push(wait);
  }
  return { waits, next: t };
}

Deno.test("a guest that never becomes Ready: creates spaced by the backoff, capped at retry.maximum", async () => {
  await scenario({ jitter: HIGH, diagnostics: true }, async (x) => {
    const { waits, next } = await failInARow(x, 7, "bootstrap_timeout", HIGH);
    // At the lower bound first, doubling, then held at the upper bound (16 s uncapped at k = 5).
    assert.deepEqual(waits, [1000, 2000, 4000, 8000, 8000, 8000, 8000]);
    await x.at(next);
    assert.equal(x.creates(), 8, "and retrying after the 7th failure: never stops");
    assert.equal(x.sim.github.count("POST", /generatejitconfig$/), 8, "one registration each");
    const errors = x.lines.filter((l) => l.level === "error");
    assert.equal(errors.length, 1, "one escalation per run of failures");
    const e = errors[0];
    assert.equal(e.msg, "runners keep failing before taking a job; still retrying");
    assert.equal(e.consecutive_failures, ESCALATE_AFTER);
    assert.equal(e.kind, "bootstrap_timeout");
    assert.match(String(e.likely_cause), /incus\.image.*incus-agent.*profile/);
    const capture = String(e.console_capture);
    assert.ok(capture.startsWith(`${x.dir}/${e.runner}-`), capture);
    assert.match(await Deno.readTextFile(capture), /Linux version/);
    assert.equal(e.image, "a".repeat(64));
  });
});

Deno.test("a guest that powers off at every boot: creates spaced by the low end of each wait", async () => {
  await scenario({ jitter: LOW }, async (x) => {
    x.guest("power-off");
    const { waits } = await failInARow(x, 6, "stopped_before_job", LOW);
    // The low end of each range: never below retry.initial, half the high end otherwise.
    assert.deepEqual(waits, [1000, 1000, 2000, 4000, 4000, 4000]);
    const e = x.lines.find((l) => l.level === "error");
    assert.equal(e?.kind, "stopped_before_job");
    assert.equal(e?.console_capture, "none (set incus.diagnostics_dir)");
    assert.equal(x.sim.github.count("POST", /generatejitconfig$/), x.creates());
  });
});

Deno.test("every kind feeds the one backoff and a runner that reaches Ready resets it", async () => {
  await scenario({ jitter: HIGH }, async (x) => {
    const { next } = await failInARow(x, 3, "bootstrap_timeout", HIGH);
    // A healthy runner: Ready resets the count.
    x.guest("healthy");
    await x.at(next);
    await waitFor("Ready", () => x.sim.owned()[0]?.status === "Ready", 10_000);
    await x.at(next + 1);
    const reset = x.lines.find((l) => l.msg === "runner failure backoff reset");
    assert.equal(reset?.cleared_failures, 3);
    assert.equal(reset?.reason, "runner ready");
    assert.equal(x.ctl.backoff.failures, 0);
    // It powers off without a job: the count starts again at 1, the wait at retry.initial.
    x.sim.incus.powerOff(x.sim.owned()[0].name);
    await x.at(next + 2);
    let rec = failures(x.lines).at(-1)!;
    assert.deepEqual([rec.kind, rec.consecutive_failures, rec.backoff_ms], [
      "stopped_before_job",
      1,
      1000,
    ]);
    // GitHub refuses the registration (every retry of the call): kind registration_failed.
    x.sim.github.faults.failNext(5, 503, /generatejitconfig$/);
    let t = next + 2 + 1000;
    await x.at(t - 1);
    assert.equal(failures(x.lines).length, 4, "nothing tried before the wait");
    await x.at(t);
    rec = failures(x.lines).at(-1)!;
    assert.deepEqual([rec.kind, rec.consecutive_failures, rec.backoff_ms], [
      "registration_failed",
      2,
      2000,
    ]);
    // Incus fails the create inside its operation: kind start_failed.
    x.sim.incus.faults.failNextCreate = "Failed creating instance record: disk full";
    t += 2000;
    await x.at(t);
    rec = failures(x.lines).at(-1)!;
    assert.deepEqual([rec.kind, rec.consecutive_failures, rec.backoff_ms], [
      "start_failed",
      3,
      4000,
    ]);
    assert.match(String(rec.error), /disk full/);
    assert.equal(x.sim.owned().length, 0);
    assert.equal(x.sim.github.runners.size, 0, "no registration left behind");
    // Its instance is deleted behind the controller's back while booting: vanished_before_job.
    t += 4000;
    x.guest("never-ready");
    await x.at(t);
    await waitFor("the guest to boot", booted(x.sim), 10_000);
    x.sim.incus.instances.delete(`default/${x.sim.owned()[0].name}`);
    await x.at(t + 1);
    rec = failures(x.lines).at(-1)!;
    assert.deepEqual([rec.kind, rec.consecutive_failures, rec.backoff_ms], [
      "vanished_before_job",
      4,
      8000,
    ]);
    assert.equal(x.sim.github.runners.size, 0, "its registration is removed");
    // A runner that takes its job before Ready resets it too.
    t += 1 + 8000;
    await x.at(t - 1);
    assert.equal(x.ctl.pool.runners.size, 0, "nothing before the wait");
    await x.at(t);
    const rec2 = x.ctl.pool.runners.values().next().value!;
    x.ctl.onJob(
      {
        messageType: "JobStarted",
        runnerRequestId: 1,
        jobId: "job-1",
        runnerName: rec2.name,
        runnerId: rec2.runnerId,
      } as Parameters<typeof x.ctl.onJob>[0],
    );
    const resets = x.lines.filter((l) => l.msg === "runner failure backoff reset");
    assert.equal(resets.length, 2);
    assert.deepEqual([resets[1].reason, resets[1].cleared_failures], ["job started", 4]);
  });
});

Deno.test("a runner that ran its job before its JobStarted arrived is no failure", async () => {
  // No listener in process: the controller never hears of the job, as when the messages lag.
  await scenario(
    { jitter: HIGH, github: { sendJobAvailable: false, jobDurationMs: 20 } },
    async (x) => {
      x.guest("healthy");
      await x.at(x.now());
      await waitFor("Ready", () => x.sim.owned()[0]?.status === "Ready", 10_000);
      const job = x.sim.github.queueJob();
      await waitFor(
        "the job to run and the guest to power off",
        () => job.state === "completed" && x.sim.owned()[0]?.status === "Stopped",
        10_000,
      );
      await x.at(x.now() + 1);
      assert.deepEqual(failures(x.lines), []);
      const removed = x.lines.find((l) => l.msg === "runner removed");
      assert.equal(removed?.reason, "job finished");
      assert.equal(x.ctl.backoff.failures, 0);
    },
  );
});

Deno.test("the shipped process: a guest that powers off at every boot is recreated only after each wait", async () => {
  await withSimulation({
    incus: {
      onGuestBoot: (inst: FakeInstance) => {
        inst.status = "Stopped"; // powered off before its runner could start
        inst.agent = false;
        return false;
      },
    },
  }, async (sim) => {
    const ctl = startController(sim, {
      args: ["--min-runners", "1", "--max-runners", "1"],
      env: { RUNNER_CTL_RETRY_INITIAL: "500ms", RUNNER_CTL_RETRY_MAXIMUM: "2s" },
    });
    try {
      await waitFor("four failures", () => failures(ctl.lines).length >= 4, 60_000);
    } finally {
      assert.equal(await ctl.stop(), 0, ctl.stderr());
    }
    const recs = failures(ctl.lines).slice(0, 4);
    assert.deepEqual(recs.map((r) => r.consecutive_failures), [1, 2, 3, 4]);
    assert.ok(recs.every((r) => r.kind === "stopped_before_job"));
    const at = sim.incus.seen.filter((r) => r.method === "POST" && r.path === "/1.0/instances")
      .map((r) => r.at);
    for (let i = 0; i < 4; i++) {
      const wait = Number(recs[i].backoff_ms);
      assert.ok(wait >= 500 && wait <= 2000, `wait ${i + 1}: ${wait}`);
      if (at[i + 1] !== undefined) {
        assert.ok(at[i + 1] - at[i] >= wait, `create ${i + 2} came ${at[i + 1] - at[i]} ms after`);
      }
    }
    assert.equal(sim.github.count("POST", /generatejitconfig$/), at.length, "one JIT per create");
  });
});
