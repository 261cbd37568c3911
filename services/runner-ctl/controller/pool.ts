/**
 * The controller's view of its runners, rebuilt from Incus tags after a restart. A runner moves
 * creating → booting → idle → busy → done → removing; any state can go to removing (bootstrap
 * timeout, scale-down, a vanished VM, shutdown). `desiredRunners` is the scale-set rule:
 * min(max, min + totalAssignedJobs).
 *
 * @module
 */

/** Lifecycle states of a runner. */
export type RunnerState = "creating" | "booting" | "idle" | "busy" | "done" | "removing";

/** One runner: a JIT registration and its Incus instance (same name). */
export interface RunnerRecord {
  name: string;
  runnerId?: number;
  state: RunnerState;
  /** When the record entered its current state (ms). */
  since: number;
  /**
   * When this controller began creating it (start-up time counts from here; cleared once that is
   * recorded; unset for adopted runners).
   */
  createdAt?: number;
  /** When its job started (job duration counts from here). */
  jobStartedAt?: number;
  /** When the instance was started (bootstrap_timeout counts from here). */
  startedAt?: number;
  jobRequestId?: number;
  /** A failed removal is tried again from this time on (backoff between retry bounds). */
  retryAt?: number;
  /** Removals that failed in a row. */
  failures?: number;
  /** Set when the runner failed before taking a job (it fed the failure backoff). */
  failure?: { kind: string; escalate: boolean };
  /** The fingerprint of the image its instance was created from, when known. */
  image?: string;
  /** The serial-console capture written at its removal, if any. */
  capture?: string;
}

/** Runners counted toward demand (not finished, not being removed). */
const ACTIVE: ReadonlySet<RunnerState> = new Set(["creating", "booting", "idle", "busy"]);

/**
 * The target runner count: min(max, min + assigned jobs). `assignedJobs` comes from GitHub's
 * statistics; anything but a non-negative number counts as 0, so an answer only ever moves the
 * count within [min, max].
 */
export function desiredRunners(min: number, max: number, assignedJobs: number): number {
  const jobs = typeof assignedJobs === "number" && assignedJobs > 0 ? assignedJobs : 0;
  return Math.max(0, Math.min(max, min + Math.floor(jobs)));
}

/** The runner table. */
export class RunnerPool {
  readonly runners: Map<string, RunnerRecord> = new Map();
  #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Adds a record (new or adopted). */
  add(r: Omit<RunnerRecord, "since"> & { since?: number }): RunnerRecord {
    const rec = { since: this.#now(), ...r };
    this.runners.set(rec.name, rec);
    return rec;
  }

  /** Moves a runner to `state`. */
  set(name: string, state: RunnerState, extra: Partial<RunnerRecord> = {}): void {
    const r = this.runners.get(name);
    if (!r) return;
    Object.assign(r, extra, { state, since: this.#now() });
  }

  /** Runners in any of `states`. */
  inState(...states: RunnerState[]): RunnerRecord[] {
    return [...this.runners.values()].filter((r) => states.includes(r.state));
  }

  /** Runners that count toward demand. */
  active(): number {
    return [...this.runners.values()].filter((r) => ACTIVE.has(r.state)).length;
  }

  /** Every runner the controller still has an instance for (never more than max). */
  total(): number {
    return this.runners.size;
  }

  /** Counts per state, for logs. */
  summary(): Record<RunnerState, number> {
    const s = { creating: 0, booting: 0, idle: 0, busy: 0, done: 0, removing: 0 };
    for (const r of this.runners.values()) s[r.state]++;
    return s;
  }
}

/**
 * An Incus-valid instance name for a runner of `scaleSet`: hostname rules (1–63 characters of
 * letters, digits and `-`, not starting or ending with `-`, not all digits).
 */
export function runnerName(scaleSet: string, random: () => string): string {
  const base = scaleSet.toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+|-+$/g, "")
    .slice(0, 40).replace(/-+$/, "");
  return `${base || "runner"}-${random()}`;
}
