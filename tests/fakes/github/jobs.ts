/**
 * The job and runner side of the fake Actions service: a job stream (queue → available →
 * acquired/assigned → started on a runner → completed), just-in-time runners, and the messages
 * each transition puts on the scale set's queue, with the statistics a real service reports.
 *
 * @module
 */

/** A job of the simulation. */
export interface FakeJob {
  runnerRequestId: number;
  jobId: string;
  state: "available" | "assigned" | "running" | "completed";
  runnerId?: number;
  runnerName?: string;
  result?: string;
  queueTime: string;
  runnerAssignTime?: string;
}

/** A registered just-in-time runner. */
export interface FakeRunner {
  id: number;
  name: string;
  scaleSetId: number;
  jit: string;
  /** The guest connected (its runner process runs). */
  online: boolean;
  jobRequestId?: number;
}

/** One queued message; `acked` after DeleteMessage. */
export interface FakeMessage {
  messageId: number;
  scaleSetId: number;
  jobs: Record<string, unknown>[];
  acked: boolean;
  /** Lifecycle messages (JobStarted/JobCompleted) do not wake a poll in "no wake" mode. */
  lifecycle: boolean;
}

/** The statistics of a scale set, computed from the jobs and runners. */
export function statisticsOf(jobs: Iterable<FakeJob>, runners: Iterable<FakeRunner>) {
  const js = [...jobs];
  const rs = [...runners];
  const count = (s: FakeJob["state"]) => js.filter((j) => j.state === s).length;
  return {
    totalAvailableJobs: count("available"),
    totalAcquiredJobs: count("assigned"),
    totalAssignedJobs: count("assigned") + count("running"),
    totalRunningJobs: count("running"),
    totalRegisteredRunners: rs.length,
    totalBusyRunners: rs.filter((r) => r.jobRequestId !== undefined).length,
    totalIdleRunners: rs.filter((r) => r.online && r.jobRequestId === undefined).length,
  };
}

/** A job message body as the service encodes it. */
export function jobMessage(type: string, job: FakeJob, extra: Record<string, unknown> = {}) {
  return {
    messageType: type,
    runnerRequestId: job.runnerRequestId,
    repositoryName: "repo",
    ownerName: "org",
    jobId: job.jobId,
    jobWorkflowRef: "org/repo/.github/workflows/ci.yml@refs/heads/main",
    jobDisplayName: "build",
    workflowRunId: 1000 + job.runnerRequestId,
    eventName: "push",
    requestLabels: [],
    queueTime: job.queueTime,
    scaleSetAssignTime: job.queueTime,
    runnerAssignTime: job.runnerAssignTime ?? "0001-01-01T00:00:00Z",
    finishTime: "0001-01-01T00:00:00Z",
    ...extra,
  };
}
