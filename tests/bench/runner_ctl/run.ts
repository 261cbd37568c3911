// deno-lint-ignore-file no-console -- a benchmark prints its results
/**
 * runner-ctl benchmark (run on demand, not a test):
 *
 *   deno run -A tests/bench/runner_ctl/run.ts [--jobs 15] [--idle-seconds 65]
 *
 * 1. Reaction time: from a JobAvailable message entering the fake Actions service's queue to
 *    the controller's instance-create request reaching the fake Incus socket (the real
 *    controller process: long-poll wake, AcquireJobs, statistics, reconcile, JIT config, then
 *    POST /1.0/instances). Baseline in the same run: a minimal client doing only the
 *    unavoidable part (a woken GetMessage on the same fake, then one POST to the same socket).
 * 2. Idle cost: GetMessage requests per minute with an idle queue, with the upstream ~50 s long
 *    poll (`message_poll_timeout` 0s) and with `message_poll_timeout` 5s.
 *
 * Prints the Markdown table for tests/bench/RESULTS.md.
 */
import { parseArgs } from "node:util";
import { startSimulation } from "../../fakes/simulation.ts";
import { startController, waitFor } from "../../runner-ctl/_test_support.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    jobs: { type: "string", default: "15" },
    "idle-seconds": { type: "string", default: "65" },
  },
});
const JOBS = Number(values.jobs);
const IDLE_S = Number(values["idle-seconds"]);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

async function reactionController(): Promise<number[]> {
  const sim = await startSimulation({ github: { jobDurationMs: 50, longPollMs: 50_000 } });
  const ctl = startController(sim, { args: ["--max-runners", "1", "--reconcile-interval", "1s"] });
  const out: number[] = [];
  try {
    await waitFor("a session", () => sim.github.sessions.size === 1);
    await waitFor("a poll in flight", () => sim.github.count("GET", /^\/queue\//) >= 1);
    for (let i = 0; i < JOBS; i++) {
      const before = sim.incus.count("POST", /^\/1\.0\/instances$/);
      const t0 = Date.now();
      const job = sim.github.queueJob();
      await waitFor(
        "the create request",
        () => sim.incus.count("POST", /^\/1\.0\/instances$/) > before,
      );
      const create = sim.incus.seen.findLast((r) =>
        r.method === "POST" && r.path === "/1.0/instances"
      )!;
      out.push(create.at - t0);
      await waitFor("the job to finish", () => job.state === "completed");
      await waitFor("the runner to go", () => sim.owned().length === 0);
      await new Promise((r) => setTimeout(r, 300)); // the next poll is in flight again
    }
  } finally {
    await ctl.stop();
    await sim.close();
  }
  return out;
}

async function reactionBaseline(): Promise<number[]> {
  const sim = await startSimulation({ github: { longPollMs: 50_000 } });
  const client = Deno.createHttpClient({ caCerts: [sim.github.caCert] });
  const incus = Deno.createHttpClient({ proxy: { transport: "unix", path: sim.incus.path } });
  const out: number[] = [];
  try {
    // Open a session the way the controller does (by hand: registration, admin token).
    const api = `${sim.github.origin}/api/v3`;
    const post = (url: string, auth: string, body?: unknown) =>
      fetch(url, {
        method: "POST",
        client,
        headers: { Authorization: auth, "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then((r) => r.json());
    const reg = await post(
      `${api}/repos/org/repo/actions/runners/registration-token`,
      "Bearer ghp_simulation_token",
    );
    const admin = await post(`${api}/actions/runner-registration`, `RemoteAuth ${reg.token}`, {
      url: sim.github.configUrl,
      runner_event: "register",
    });
    const set = await post(
      `${admin.url}_apis/runtime/runnerscalesets?api-version=6.0-preview`,
      `Bearer ${admin.token}`,
      {
        name: "linux-x64",
        runnerGroupId: 1,
        labels: [{ name: "linux-x64", type: "System" }],
        RunnerSetting: { disableUpdate: true },
      },
    );
    const session = await post(
      `${admin.url}_apis/runtime/runnerscalesets/${set.id}/sessions?api-version=6.0-preview`,
      `Bearer ${admin.token}`,
      { ownerName: "bench" },
    );
    let last = 0;
    for (let i = 0; i < JOBS; i++) {
      const poll = fetch(`${session.messageQueueUrl}?lastMessageId=${last}`, {
        client,
        headers: {
          Authorization: `Bearer ${session.messageQueueAccessToken}`,
          "X-ScaleSetMaxCapacity": "1",
        },
      }).then((r) => r.json());
      await new Promise((r) => setTimeout(r, 200));
      const t0 = Date.now();
      sim.github.queueJob(set.id);
      const msg = await poll;
      last = msg.messageId;
      await fetch("http://incus/1.0/instances?project=default", {
        method: "POST",
        client: incus,
        body: JSON.stringify({
          name: `b${i}`,
          type: "virtual-machine",
          source: { type: "image", alias: "runner" },
        }),
      }).then((r) => r.body?.cancel());
      const create = sim.incus.seen.findLast((r) =>
        r.method === "POST" && r.path === "/1.0/instances"
      )!;
      out.push(create.at - t0);
    }
  } finally {
    client.close();
    incus.close();
    await sim.close();
  }
  return out;
}

/** Polls per minute at idle: 60 s over the mean gap between consecutive GetMessage starts. */
async function idleRate(pollTimeout: string): Promise<number> {
  const sim = await startSimulation({ github: { longPollMs: 50_000 } });
  const ctl = startController(sim, {
    env: { RUNNER_CTL_GITHUB_MESSAGE_POLL_TIMEOUT: pollTimeout },
  });
  try {
    await waitFor("a session", () => sim.github.sessions.size === 1);
    await new Promise((r) => setTimeout(r, IDLE_S * 1000));
    const starts = sim.github.seen.filter((r) => r.method === "GET" && r.path.startsWith("/queue/"))
      .map((r) => r.at);
    if (starts.length < 2) return NaN;
    return 60_000 / ((starts.at(-1)! - starts[0]) / (starts.length - 1));
  } finally {
    await ctl.stop();
    await sim.close();
  }
}

const base = await reactionBaseline();
const ctl = await reactionController();
const idleUpstream = await idleRate("0s");
const idleCut = await idleRate("5s");
const load = Deno.loadavg().map((x) => x.toFixed(1)).join(" ");
console.log(`
Run ${
  new Date().toISOString().slice(0, 16)
}Z, \`deno run -A tests/bench/runner_ctl/run.ts\` (${JOBS} jobs, ${IDLE_S} s idle
windows), real controller process against the linked fakes; load average at the end: ${load}.

| measure | runner-ctl | baseline | ratio |
| --- | --- | --- | --- |
| JobAvailable → instance-create request, median (min–max) | ${median(ctl)} ms (${
  Math.min(...ctl)
}–${Math.max(...ctl)}) | ${median(base)} ms (${Math.min(...base)}–${
  Math.max(...base)
}): woken GetMessage + one POST | ${(median(ctl) / Math.max(1, median(base))).toFixed(1)}× |
| GetMessage requests per minute at idle, \`message_poll_timeout: 5s\` | ${idleCut.toFixed(1)} | ${
  idleUpstream.toFixed(1)
} with \`0s\` (upstream ~50 s poll) | ${(idleCut / idleUpstream).toFixed(1)}× |
`);
