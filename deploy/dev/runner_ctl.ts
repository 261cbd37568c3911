// deno-lint-ignore-file no-console -- a development tool talks to its user on the console
/**
 * `deno task dev` for runner-ctl: starts the linked fakes of `tests/fakes/` (GitHub + Actions
 * service, Incus), a simulated stream of jobs (single jobs and bursts, random durations), and the
 * real controller process pointed at them, with its permissions of `deploy/services.ts`, so a
 * person can watch it scale; every 5 s one summary line (jobs queued, started, running, waiting,
 * failed; runners by state). SIGINT/SIGTERM stop the controller
 * gracefully (it drains), then the fakes.
 *
 * Options: `--max-runners N`, `--min-runners N` and the other controller flags are passed on.
 *
 * @module
 */
import { startSimulation } from "../../tests/fakes/simulation.ts";
import { SERVICES } from "../services.ts";
import { summarize, summaryLine } from "../../tests/fakes/simulation_summary.ts";

const DEPLOYED = SERVICES.find((s) => s.name === "runner-ctl")!;
const MAIN = new URL("../../services/runner-ctl/main.ts", import.meta.url).pathname;
/** The controller's own permission set (`deploy/services.ts`), not a copy of it. */
const PERMISSIONS = DEPLOYED.permissions;

async function main(args: string[]) {
  const sim = await startSimulation({
    github: { jobDurationMs: 0, longPollMs: 50_000 },
    incus: { operationMs: 150, agentDelayMs: 800 },
  });
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMISSIONS, MAIN, "--max-runners", "4", ...args],
    env: sim.env({ RUNNER_CTL_RECONCILE_INTERVAL: "500ms" }),
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  const stop = () => {
    try {
      child.kill("SIGTERM");
    } catch { /* gone */ }
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  const jobs = (async () => {
    let n = 0;
    const running = new Set<number>();
    while (true) {
      await new Promise((r) => setTimeout(r, 2000 + Math.random() * 4000));
      const burst = n % 5 === 4 ? 4 : 1;
      for (let i = 0; i < burst; i++) {
        const job = sim.github.queueJob();
        n++;
        console.log(JSON.stringify({ sim: "job queued", job: job.jobId }));
        const duration = 3000 + Math.random() * 7000;
        const finish = setInterval(() => {
          if (job.state === "running" && !running.has(job.runnerRequestId)) {
            running.add(job.runnerRequestId);
            setTimeout(() => sim.github.completeJob(job.runnerRequestId), duration);
          }
          if (job.state === "completed") {
            clearInterval(finish);
            console.log(JSON.stringify({ sim: "job completed", job: job.jobId }));
          }
        }, 200);
      }
    }
  })();
  void jobs;
  // One readable line every 5 s between the JSON records (issue 40 item 6).
  const summary = setInterval(() => console.log(summaryLine(summarize(sim))), 5000);
  const { code } = await child.status;
  clearInterval(summary);
  console.log(summaryLine(summarize(sim)));
  await sim.close().catch(() => {});
  Deno.exit(code);
}

if (import.meta.main) await main(Deno.args);
