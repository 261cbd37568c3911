/**
 * One readable line about a runner-ctl simulation (`deno task dev` prints it every few seconds
 * between the JSON records): jobs queued so far, started so far, running now, waiting now, failed
 * so far, and the controller's runners by state as the fakes see them (a VM booting, an idle
 * runner, a busy one, a stopped VM not yet removed).
 *
 * @module
 */
import type { Simulation } from "./simulation.ts";

/** The counts of one summary. */
export interface SimulationSummary {
  jobs: { queued: number; started: number; running: number; waiting: number; failed: number };
  runners: { booting: number; idle: number; busy: number; stopped: number };
}

/** Counts what the fakes hold now (jobs: every one queued since the start). */
export function summarize(sim: Simulation): SimulationSummary {
  const jobs = { queued: 0, started: 0, running: 0, waiting: 0, failed: 0 };
  for (const job of sim.github.jobs.values()) {
    jobs.queued++;
    if (job.runnerAssignTime !== undefined) jobs.started++;
    if (job.state === "running") jobs.running++;
    if (job.state === "available" || job.state === "assigned") jobs.waiting++;
    if (job.state === "completed" && job.result !== "succeeded") jobs.failed++;
  }
  const busyNames = new Set(
    [...sim.github.runners.values()].filter((r) => r.jobRequestId !== undefined).map((r) => r.name),
  );
  const runners = { booting: 0, idle: 0, busy: 0, stopped: 0 };
  for (const vm of sim.owned()) {
    if (vm.status === "Stopped") runners.stopped++;
    else if (busyNames.has(vm.name)) runners.busy++;
    else if (vm.status === "Ready") runners.idle++;
    else runners.booting++;
  }
  return { jobs, runners };
}

/** The summary as one line of text. */
export function summaryLine(s: SimulationSummary): string {
  const j = s.jobs, r = s.runners;
  return `[sim] jobs: ${j.queued} queued, ${j.started} started, ${j.running} running, ` +
    `${j.waiting} waiting, ${j.failed} failed | runners: ${r.booting} booting, ${r.idle} idle, ` +
    `${r.busy} busy, ${r.stopped} stopped`;
}
