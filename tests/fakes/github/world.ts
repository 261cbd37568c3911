/**
 * The state of the fake Actions service and its job stream: scale sets, sessions, the message
 * queue (with long-poll waiters), jobs and just-in-time runners, and the transitions a real
 * service makes (acquire → JobAssigned, a runner connects → JobStarted, completion →
 * JobCompleted, the ephemeral runner unregistering).
 *
 * @module
 */
import type { FakeGithubOptions } from "./fake_github.ts";
import { fakeJwt } from "./errors.ts";
import { type Faults, newFaults } from "./faults.ts";
import {
  type FakeJob,
  type FakeMessage,
  type FakeRunner,
  jobMessage,
  statisticsOf,
} from "./jobs.ts";

/** A message session. */
export interface Session {
  sessionId: string;
  scaleSetId: number;
  ownerName: string;
  token: string;
}

/** A long poll waiting for a message. */
export interface Waiter {
  scaleSetId: number;
  wake: () => void;
}

/** A request the fake saw. */
export interface SeenRequest {
  method: string;
  path: string;
  at: number;
}

/** A scale set as stored. */
export type StoredScaleSet = Record<string, unknown> & { id: number; name: string };

/** Everything the fake knows. */
export class World {
  readonly options: FakeGithubOptions;
  readonly target: string;
  readonly faults: Faults = newFaults();
  readonly pats: Set<string>;
  readonly installTokens: Set<string> = new Set();
  readonly regTokens: Set<string> = new Set();
  readonly adminTokens: Map<string, number> = new Map();
  readonly groups: { id: number; name: string; isDefaultGroup: boolean }[];
  readonly scaleSets: Map<number, StoredScaleSet> = new Map();
  readonly sessions: Map<string, Session> = new Map();
  readonly messages: FakeMessage[] = [];
  readonly jobs: Map<number, FakeJob> = new Map();
  readonly runners: Map<number, FakeRunner> = new Map();
  readonly waiters: Set<Waiter> = new Set();
  readonly seen: SeenRequest[] = [];
  readonly nextId = { set: 1, msg: 1, job: 1, runner: 1 };
  redeliver: FakeMessage | undefined;
  origin = "";

  constructor(options: FakeGithubOptions) {
    this.options = options;
    this.target = options.target ?? "org";
    this.pats = new Set(options.pats ?? []);
    this.groups = [
      { id: 1, name: "Default", isDefaultGroup: true },
      ...(options.groups ?? []).map((name, i) => ({ id: i + 2, name, isDefaultGroup: false })),
    ];
  }

  /** Whether JSON bodies get a byte order mark. */
  bom(): boolean {
    return this.faults.bom;
  }

  /** A fresh queue token. */
  queueToken(): string {
    return fakeJwt(Date.now() + (this.options.queueTokenTtlMs ?? 3600_000), "queue");
  }

  /** Puts a message on a scale set's queue and wakes its polls (not lifecycle ones in no-wake). */
  post(scaleSetId: number, body: Record<string, unknown>[], lifecycle = false): FakeMessage {
    const msg = {
      messageId: this.nextId.msg++,
      scaleSetId,
      jobs: body,
      acked: false,
      lifecycle,
    };
    this.messages.push(msg);
    for (const w of [...this.waiters]) {
      if (w.scaleSetId === scaleSetId && !(lifecycle && this.faults.noWake)) w.wake();
    }
    return msg;
  }

  /** The first scale set's id. */
  anySet(): number | undefined {
    return [...this.scaleSets.values()][0]?.id;
  }

  /** Statistics of a scale set. */
  stats(scaleSetId: number): ReturnType<typeof statisticsOf> {
    return statisticsOf(
      this.jobs.values(),
      [...this.runners.values()].filter((r) => r.scaleSetId === scaleSetId),
    );
  }

  #startOnRunner(job: FakeJob, runner: FakeRunner): void {
    job.state = "running";
    job.runnerId = runner.id;
    job.runnerName = runner.name;
    job.runnerAssignTime = new Date().toISOString();
    runner.jobRequestId = job.runnerRequestId;
    this.post(runner.scaleSetId, [
      jobMessage("JobStarted", job, { runnerId: runner.id, runnerName: runner.name }),
    ], true);
    if (this.options.jobDurationMs) {
      setTimeout(() => this.completeJob(job.runnerRequestId), this.options.jobDurationMs);
    }
  }

  /** Starts assigned jobs on idle connected runners. */
  dispatch(): void {
    for (const job of this.jobs.values()) {
      if (job.state !== "assigned") continue;
      const idle = [...this.runners.values()].find((r) => r.online && r.jobRequestId === undefined);
      if (!idle) return;
      this.#startOnRunner(job, idle);
    }
  }

  /** Completes a running job: JobCompleted, then the ephemeral runner unregisters. */
  completeJob(runnerRequestId: number, result = "succeeded"): void {
    const job = this.jobs.get(runnerRequestId);
    if (!job || job.state !== "running") return;
    job.state = "completed";
    job.result = result;
    const r = job.runnerId === undefined ? undefined : this.runners.get(job.runnerId);
    if (r) this.runners.delete(r.id);
    const set = r?.scaleSetId ?? this.anySet();
    if (set !== undefined) {
      this.post(set, [jobMessage("JobCompleted", job, {
        runnerId: job.runnerId,
        runnerName: job.runnerName,
        result,
        finishTime: new Date().toISOString(),
      })], true);
    }
    if (r) this.options.onRunnerDone?.(r.name);
  }

  /** Deletes a scale set and its sessions. */
  deleteScaleSet(id: number): void {
    this.scaleSets.delete(id);
    for (const s of [...this.sessions.values()]) {
      if (s.scaleSetId === id) this.sessions.delete(s.sessionId);
    }
    this.faults.setDeleted = true;
    this.wakeAll();
  }

  /** Ends every waiting poll. */
  wakeAll(): void {
    for (const w of [...this.waiters]) w.wake();
  }

  /** The session body (an empty queue URL while that fault is on). */
  sessionBody(s: Session): Record<string, unknown> {
    const empty = this.faults.emptyQueueUrl > 0 ? (this.faults.emptyQueueUrl--, true) : false;
    return {
      sessionId: s.sessionId,
      ownerName: s.ownerName,
      runnerScaleSet: this.scaleSets.get(s.scaleSetId),
      messageQueueUrl: empty ? "" : `${this.origin}/queue/${s.sessionId}`,
      messageQueueAccessToken: s.token,
      statistics: this.stats(s.scaleSetId),
    };
  }
}

/** The bearer token of a request. */
export function bearer(req: Request): string | undefined {
  return /^Bearer (.+)$/.exec(req.headers.get("authorization") ?? "")?.[1];
}
