/**
 * The reconcile loop. Every `reconcile_interval` (and at once when new statistics arrive) it
 * lists the instances carrying our owner tag, adopts or sweeps the ones it has no record of
 * (after a restart: a running instance whose registration still exists is adopted, anything else
 * is removed), moves runners along (Ready → idle, stopped → removed, bootstrap timeout → removed)
 * and scales to min(max, min + totalAssignedJobs) without ever holding more than max instances.
 * Every runner that fails before it takes a job feeds one {@linkcode FailureBackoff}: no runner
 * is created until its wait has passed, and a runner that reaches Ready resets it.
 *
 * Image rotation: `incus.image` is checked every `incus.image_refresh_interval` and after a
 * failed create ({@linkcode ImageSource}). A new fingerprint is logged once and used for every new
 * runner; idle and booting runners of an older image are removed (a runner GitHub reports busy is
 * kept and finishes its job), so scaling replaces them from the new one. An image that is gone
 * is one error naming the setting and a failure of kind `image_missing` per check; no runner is
 * created, and it is checked again as the failure backoff allows until it is back.
 *
 * @module
 */
import type { Logger } from "@svc/shared/log";
import { delay } from "@svc/shared/lifecycle";
import type { ActionsClient } from "../github/actions.ts";
import { backoffMs, jittered, type RetryPolicy } from "../github/http.ts";
import type { ListenerHandler } from "../github/listener.ts";
import type { JobMessage, RunnerScaleSet, Statistics } from "../github/types.ts";
import { type InstanceClient, type InstanceInfo, TAG } from "../incus/instances.ts";
import type { ImageSource } from "../incus/image_source.ts";
import type { PinnedTemplate } from "../incus/preflight.ts";
import { type ControllerMetrics, NO_METRICS } from "../metrics.ts";
import { desiredRunners, runnerName, RunnerPool, type RunnerRecord } from "./pool.ts";
import { FailureBackoff, type FailureKind, LIKELY_CAUSE } from "./failure_backoff.ts";
import { removeRunner, type RunnerOpsDeps, startRunner } from "./runner_ops.ts";

const STOPPED = 102;
const READY = 113;

/** Options of {@linkcode Controller}. */
export interface ControllerOptions {
  actions: ActionsClient;
  instances: InstanceClient;
  template: PinnedTemplate;
  /**
   * Keeps `incus.image` current (an alias followed, a pinned fingerprint checked). Without it
   * every runner is created from `template.fingerprint`.
   */
  image?: ImageSource;
  logger: Logger;
  scaleSet: string;
  owner: string;
  minRunners: number;
  maxRunners: number;
  bootstrapTimeoutMs: number;
  diagnosticsDir: string;
  reconcileIntervalMs: number;
  retry: RetryPolicy;
  now?: () => number;
  random?: () => string;
  /**
   * Random source in [0, 1) for the jitter of its own retries (a removal that failed waits a time
   * drawn from [backoff/2, backoff]; the failure backoff draws from its own range, see
   * {@linkcode FailureBackoff}), so controllers and runners that failed together do not retry in
   * step. Without it the waits are the low end of each range (tests).
   */
  jitter?: () => number;
  /** Where job, start-up and failure measurements go. @default {NO_METRICS} */
  metrics?: ControllerMetrics;
  /** Called after every reconcile pass of {@linkcode Controller.run}, failed or not (watchdog). */
  onPass?: () => void;
  /** Called for every JobStarted of one of our runners (job proofs hook in here). */
  onJobStarted?: (job: JobMessage, runner: RunnerRecord) => void;
}

/**
 * When a failed runner removal is tried again: `now` plus the backoff of `attempt` (0-based),
 * with equal jitter from `random` (exact without it). Failed starts feed the failure backoff.
 */
export function nextTry(
  now: number,
  retry: RetryPolicy,
  attempt: number,
  random?: () => number,
): number {
  return now + jittered({ random }, backoffMs(retry, attempt));
}

function tookJob(rec: RunnerRecord): boolean {
  return rec.state === "done" || rec.state === "busy";
}

/** The controller: the listener's handler and the reconcile loop. */
export class Controller implements ListenerHandler {
  readonly pool: RunnerPool;
  readonly options: ControllerOptions;
  scaleSetId: number | undefined;
  assignedJobs = 0;
  stopping = false;
  #ops: RunnerOpsDeps;
  #inFlight = new Map<string, Promise<void>>();
  readonly backoff: FailureBackoff;
  #wake: (() => void) | undefined;
  #now: () => number;
  #random: () => string;
  #metrics: ControllerMetrics;
  /** Set when an instance could not be accounted for this pass: scaling waits. */
  #unaccounted = false;

  constructor(options: ControllerOptions) {
    this.options = options;
    this.#now = options.now ?? Date.now;
    this.#metrics = options.metrics ?? NO_METRICS;
    this.#random = options.random ??
      (() => crypto.getRandomValues(new Uint32Array(1))[0].toString(16).padStart(8, "0"));
    this.pool = new RunnerPool(this.#now);
    this.backoff = new FailureBackoff({ retry: options.retry, random: options.jitter });
    this.#ops = {
      actions: options.actions,
      instances: options.instances,
      template: options.template,
      fingerprint: () => options.image?.fingerprint ?? options.template.fingerprint,
      pool: this.pool,
      logger: options.logger,
      owner: options.owner,
      scaleSet: options.scaleSet,
      diagnosticsDir: options.diagnosticsDir,
      now: this.#now,
    };
  }

  // ---- ListenerHandler ----
  onScaleSet(set: RunnerScaleSet): void {
    this.scaleSetId = set.id;
  }
  onStatistics(stats: Statistics): void {
    const changed = stats.totalAssignedJobs !== this.assignedJobs;
    this.assignedJobs = stats.totalAssignedJobs;
    if (changed) this.wake();
  }
  onJob(job: JobMessage): void {
    const rec = job.runnerName ? this.pool.runners.get(job.runnerName) : undefined;
    if (job.messageType === "JobStarted" && rec) {
      const now = this.#now();
      // Queue time by GitHub's own clock: queued → assigned to the runner (else: now).
      const queued = Date.parse(job.queueTime ?? "");
      const assigned = Date.parse(job.runnerAssignTime ?? "");
      if (Number.isFinite(queued)) {
        this.#metrics.jobQueued((Number.isFinite(assigned) ? assigned : now) - queued);
      }
      this.#started(rec, now); // a runner can take its job before Incus reports it Ready
      this.pool.set(rec.name, "busy", { jobRequestId: job.runnerRequestId, jobStartedAt: now });
      this.options.logger.info("job started", { runner: rec.name, job_id: job.jobId });
      this.#resetBackoff(rec, "job started");
      this.options.onJobStarted?.(job, rec);
    } else if (job.messageType === "JobCompleted" && rec) {
      if (rec.jobStartedAt !== undefined) {
        this.#metrics.jobCompleted(this.#now() - rec.jobStartedAt, job.result);
        rec.jobStartedAt = undefined;
      }
      if (rec.state !== "removing") this.pool.set(rec.name, "done");
      this.options.logger.info("job completed", { runner: rec.name, result: job.result });
      this.wake();
    }
  }

  /** Start-up time, once per runner: creation → Ready, or → its JobStarted if that came first. */
  #started(rec: RunnerRecord, now: number): void {
    if (rec.createdAt === undefined) return;
    this.#metrics.runnerStarted(now - rec.createdAt);
    rec.createdAt = undefined;
  }

  /** Runs a reconcile pass soon. */
  wake(): void {
    this.#wake?.();
  }

  /** The operations still running (spawns and removals). */
  inFlight(): number {
    return this.#inFlight.size;
  }

  /** Resolves once no spawn or removal is in flight (tests drive passes with it). */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled(this.#inFlight.values());
  }

  /**
   * A runner failed before it took a job: one record with the kind, the failures in a row and
   * the wait now in effect before the next create.
   */
  #failed(rec: RunnerRecord, kind: FailureKind, error?: unknown): void {
    const now = this.#now();
    const f = this.backoff.fail(now);
    this.#metrics.failure(kind);
    rec.failure = { kind, escalate: f.escalate };
    this.options.logger.warn("runner failed before taking a job", {
      runner: rec.name,
      kind,
      ...(error === undefined ? {} : { error: String(error) }),
      consecutive_failures: f.failures,
      backoff_ms: f.waitMs,
      next_create_at: new Date(f.retryAt).toISOString(),
    });
  }

  /**
   * After the removal of the failure that reached the threshold: one error naming the likely
   * cause and the console capture to read (the capture exists only once the runner is removed).
   */
  #escalate(rec: RunnerRecord): void {
    if (!rec.failure?.escalate) return;
    rec.failure.escalate = false;
    const kind = rec.failure.kind as FailureKind;
    this.options.logger.error("runners keep failing before taking a job; still retrying", {
      runner: rec.name,
      kind,
      consecutive_failures: this.backoff.failures,
      likely_cause: LIKELY_CAUSE[kind],
      console_capture: rec.capture ??
        (this.options.diagnosticsDir ? "not captured" : "none (set incus.diagnostics_dir)"),
      image: this.options.image?.fingerprint ?? this.options.template.fingerprint,
      profiles: this.options.template.profiles,
    });
  }

  /**
   * Whether a runner whose instance stopped or vanished took a job. Known when its JobStarted or
   * JobCompleted arrived; otherwise asked of GitHub, since those messages can lag the VM (the
   * long poll is not woken for them, upstream scaleset#122): an ephemeral runner's registration
   * is removed by the service when its job ends, one that never ran a job is still registered.
   * When GitHub cannot tell, it counts as a failure (the backoff then errs on the slow side).
   */
  async #ranAJob(rec: RunnerRecord, signal?: AbortSignal): Promise<boolean> {
    if (tookJob(rec)) return true;
    if (rec.runnerId === undefined) return false;
    let gone = false;
    try {
      gone = (await this.options.actions.getRunner(rec.runnerId, signal)) === undefined;
    } catch (err) {
      if (signal?.aborted) throw err;
      this.options.logger.warn("cannot check whether a stopped runner took a job", {
        runner: rec.name,
        error: String(err),
      });
    }
    return gone || tookJob(rec); // a JobStarted may have arrived meanwhile
  }

  #resetBackoff(rec: RunnerRecord, reason: string): void {
    const cleared = this.backoff.reset();
    if (cleared > 0) {
      this.options.logger.info("runner failure backoff reset", {
        runner: rec.name,
        reason,
        cleared_failures: cleared,
      });
    }
  }

  #track(name: string, work: () => Promise<void>): void {
    if (this.#inFlight.has(name)) return;
    const p = work().catch((err) =>
      this.options.logger.warn("runner operation failed", { runner: name, error: String(err) })
    ).finally(() => {
      this.#inFlight.delete(name);
      this.wake();
    });
    this.#inFlight.set(name, p);
  }

  /** Removes a runner in the background (once at a time per runner). */
  remove(
    rec: RunnerRecord,
    reason: string,
    removal: { onlyIfIdle?: boolean; signal?: AbortSignal } = {},
  ) {
    if (this.#inFlight.has(rec.name)) return;
    const previous = rec.state;
    this.pool.set(rec.name, "removing");
    this.#track(rec.name, async () => {
      try {
        await removeRunner(this.#ops, rec, { reason, ...removal });
        this.#escalate(rec);
      } catch (err) {
        this.#escalate(rec);
        // Stays "removing": a later pass tries again, after a backoff.
        rec.failures = (rec.failures ?? 0) + 1;
        rec.retryAt = nextTry(
          this.#now(),
          this.options.retry,
          rec.failures - 1,
          this.options.jitter,
        );
        this.options.logger.warn("runner not removed; retrying later", {
          runner: rec.name,
          from: previous,
          error: String(err),
        });
      }
    });
  }

  #spawn(setId: number, signal?: AbortSignal): void {
    const rec = this.pool.add({
      name: runnerName(this.options.scaleSet, this.#random),
      state: "creating",
      createdAt: this.#now(),
    });
    this.#track(rec.name, async () => {
      try {
        await startRunner(this.#ops, rec, setId, signal);
      } catch (err) {
        // No registration id yet: generatejitconfig itself failed. (Shutdown is no failure.)
        if (!signal?.aborted) {
          // The image may be gone (an alias moved and the old image was deleted): look again.
          if (rec.runnerId !== undefined) this.options.image?.checkSoon();
          this.#failed(
            rec,
            rec.runnerId === undefined ? "registration_failed" : "start_failed",
            err,
          );
        }
        await removeRunner(this.#ops, rec, { reason: "start failed", signal }).catch(() => {
          this.pool.set(rec.name, "removing");
        });
        this.#escalate(rec);
      }
    });
  }

  async #adoptOrSweep(inst: InstanceInfo, signal?: AbortSignal): Promise<void> {
    const id = Number(inst.config[TAG.runnerId]);
    const ours = inst.config[TAG.scaleSet] === this.options.scaleSet;
    const live = inst.statusCode !== STOPPED;
    let registered = false;
    if (ours && live && Number.isSafeInteger(id) && id > 0) {
      try {
        registered = (await this.options.actions.getRunner(id, signal)) !== undefined;
      } catch (err) {
        this.#unaccounted = true;
        this.options.logger.warn("cannot check an unknown instance yet", {
          runner: inst.name,
          error: String(err),
        });
        return;
      }
    }
    if (registered) {
      this.pool.add({
        name: inst.name,
        runnerId: id,
        state: inst.statusCode === READY ? "idle" : "booting",
        startedAt: this.#now(),
        image: inst.config[TAG.image] ?? inst.config["volatile.base_image"],
      });
      this.options.logger.info("runner adopted", { runner: inst.name, status: inst.status });
      return;
    }
    const rec = this.pool.add({
      name: inst.name,
      runnerId: Number.isSafeInteger(id) && id > 0 ? id : undefined,
      state: "removing",
    });
    this.remove(rec, "orphan sweep", { signal });
  }

  /** One reconcile pass. */
  async reconcile(signal?: AbortSignal): Promise<void> {
    const now = this.#now();
    const list = await this.options.instances.listOwned(this.options.owner, signal);
    const byName = new Map(list.map((i) => [i.name, i]));
    this.#unaccounted = false;
    for (const inst of list) {
      if (!this.pool.runners.has(inst.name)) await this.#adoptOrSweep(inst, signal);
    }
    for (const rec of [...this.pool.runners.values()]) {
      if (this.#inFlight.has(rec.name) || rec.state === "creating") continue;
      const inst = byName.get(rec.name);
      if (rec.state === "removing") {
        if (now >= (rec.retryAt ?? 0)) this.remove(rec, "retry", { signal });
      } else if (!inst) {
        if (!(await this.#ranAJob(rec, signal))) this.#failed(rec, "vanished_before_job");
        this.remove(rec, "instance vanished", { signal });
      } else if (inst.statusCode === STOPPED) {
        const jobDone = await this.#ranAJob(rec, signal);
        if (!jobDone) this.#failed(rec, "stopped_before_job");
        this.remove(rec, jobDone ? "job finished" : "instance stopped", { signal });
      } else if (rec.state === "booting" && inst.statusCode === READY) {
        this.pool.set(rec.name, "idle");
        this.options.logger.info("runner ready", { runner: rec.name });
        this.#started(rec, now);
        this.#resetBackoff(rec, "runner ready");
        this.#track(
          rec.name,
          () => this.options.instances.patchConfig(rec.name, { [TAG.jitConfig]: "" }, signal),
        );
      } else if (rec.state !== "booting" && inst.config[TAG.jitConfig]) {
        // A runner can take its job before Incus reports Ready (or after an adoption): the guest
        // has read its JIT config, so it must not stay readable in the instance's config.
        this.#track(
          rec.name,
          () => this.options.instances.patchConfig(rec.name, { [TAG.jitConfig]: "" }, signal),
        );
      } else if (
        rec.state === "booting" &&
        now - (rec.startedAt ?? rec.since) > this.options.bootstrapTimeoutMs
      ) {
        this.#failed(rec, "bootstrap_timeout");
        this.remove(rec, "bootstrap timed out", { signal });
      } else if (rec.state === "done" && now - rec.since > this.options.bootstrapTimeoutMs) {
        this.remove(rec, "still running after its job completed", { signal });
      } else if ((rec.state === "idle" || rec.state === "booting") && this.#outdated(rec)) {
        // Replaced from the new image by scaling; a runner GitHub reports busy is kept.
        this.remove(rec, "image replaced", { onlyIfIdle: true, signal });
      }
    }
    if (!this.stopping) await this.#checkImage(now, signal);
    if (!this.stopping && !this.#unaccounted) this.#scale(signal);
  }

  /** The runner was built from an image other than the current one (and that one exists). */
  #outdated(rec: RunnerRecord): boolean {
    const image = this.options.image;
    return image !== undefined && !image.gone && rec.image !== undefined &&
      rec.image !== image.fingerprint;
  }

  /**
   * Resolves `incus.image` again when due: on its interval, after a failed create, and, while
   * the image is gone, whenever the failure backoff would allow a create.
   */
  async #checkImage(now: number, signal?: AbortSignal): Promise<void> {
    const image = this.options.image;
    if (!image) return;
    if (!(image.due(now) || (image.gone && this.backoff.allows(now)))) return;
    const log = this.options.logger;
    let check;
    try {
      check = await image.check(signal);
    } catch (err) {
      if (signal?.aborted) throw err;
      log.warn("cannot check incus.image; keeping the current image", { error: String(err) });
      return;
    }
    if (check.outcome === "gone") {
      const f = this.backoff.fail(this.#now());
      this.#metrics.failure("image_missing");
      // One error per disappearance (it names the setting); each later check is a warning.
      log[check.first ? "error" : "warn"](
        check.first ? check.error.message : "incus.image still names no image",
        {
          ...(check.first ? { setting: "incus.image" } : {}),
          kind: "image_missing",
          image: image.fingerprint,
          consecutive_failures: f.failures,
          backoff_ms: f.waitMs,
          next_check_at: new Date(f.retryAt).toISOString(),
        },
      );
      return;
    }
    if (check.recovered) {
      log.info("incus.image names an image again", { image: check.fingerprint });
      this.backoff.reset();
    }
    if (check.outcome === "changed") {
      log.info("incus.image now names another image; new runners use it", {
        image: check.fingerprint,
        previous: check.previous,
        replacing: this.pool.inState("idle", "booting").filter((r) => this.#outdated(r)).length,
      });
      for (const rec of this.pool.inState("idle", "booting")) {
        if (this.#outdated(rec) && !this.#inFlight.has(rec.name)) {
          this.remove(rec, "image replaced", { onlyIfIdle: true, signal });
        }
      }
    }
  }

  #scale(signal?: AbortSignal): void {
    if (this.scaleSetId === undefined) return;
    const desired = desiredRunners(
      this.options.minRunners,
      this.options.maxRunners,
      this.assignedJobs,
    );
    const active = this.pool.active();
    const imageGone = this.options.image?.gone ?? false;
    if (active < desired && !imageGone && this.backoff.allows(this.#now())) {
      const n = Math.min(desired - active, this.options.maxRunners - this.pool.total());
      for (let i = 0; i < n; i++) this.#spawn(this.scaleSetId, signal);
    } else if (active > desired) {
      const idle = this.pool.inState("idle").sort((a, b) => a.since - b.since);
      for (const rec of idle.slice(0, active - desired)) {
        this.remove(rec, "scale down", { onlyIfIdle: true, signal });
      }
    }
  }

  /** Reconciles until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.reconcile(signal);
      } catch (err) {
        if (signal.aborted) break;
        this.options.logger.warn("reconcile failed", { error: String(err) });
      }
      this.options.onPass?.();
      const woken = new Promise<void>((r) => this.#wake = r);
      await Promise.race([delay(this.options.reconcileIntervalMs, { signal }), woken]).catch(
        () => {},
      );
      this.#wake = undefined;
    }
  }

  /**
   * Drains on shutdown: no new runners; idle and booting runners are removed; busy runners get
   * until `deadline` to finish (then they are left for the next start to adopt or sweep).
   */
  async drain(deadline: number, signal: AbortSignal): Promise<void> {
    this.stopping = true;
    const log = this.options.logger;
    while (this.#now() < deadline && !signal.aborted) {
      for (const rec of this.pool.inState("idle", "booting")) {
        this.remove(rec, "shutdown", { onlyIfIdle: true, signal });
      }
      try {
        await this.reconcile(signal);
      } catch (err) {
        log.warn("reconcile failed", { error: String(err) });
      }
      if (this.pool.total() === 0 && this.#inFlight.size === 0) break;
      await delay(Math.min(this.options.reconcileIntervalMs, 250), { signal }).catch(() => {});
    }
    await Promise.race([
      Promise.allSettled(this.#inFlight.values()),
      delay(Math.max(0, deadline - this.#now()), { signal }).catch(() => {}),
    ]);
    if (this.pool.total() > 0) {
      log.warn("runners left at shutdown; the next start adopts or removes them", {
        runners: [...this.pool.runners.keys()],
      });
    }
  }
}
