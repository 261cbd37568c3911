/**
 * Signing one proof per started job. {@linkcode JobProofQueue.offer} is called from the listener
 * for every JobStarted of one of our runners; it never blocks and never throws, so proofs cannot
 * disturb demand tracking. A malformed event or a full queue (capacity max(1, max_runners))
 * produces no proof. A worker signs queued jobs one at a time and commits each envelope to the
 * guest as the instance config key `user.runner-ctl-job-proof`, which the guest helper reads from
 * `/dev/incus/sock` (`GET /1.0/config/user.runner-ctl-job-proof`).
 *
 * Idempotent under redelivery: a job already signed (or queued) in this process is not signed
 * again, and an instance that already holds a proof keeps it, so one job never gets two
 * conflicting proofs. Events are not persisted: a crash between acknowledgement and commit leaves
 * the job without a proof, and the guest helper times out.
 *
 * @module
 */
import type { Logger } from "@svc/shared/log";
import type { JobMessage } from "../github/types.ts";
import { signProof } from "./envelope.ts";
import type { SigningKey } from "./keys.ts";
import { buildPayload, isRfc3339Utc, type JobProofPayload } from "./payload.ts";

/** The instance config key that carries the committed proof to the guest. */
export const PROOF_CONFIG_KEY = "user.runner-ctl-job-proof";

/** How the queue reaches the guest: read and merge instance config keys. */
export interface ProofCommitter {
  get(name: string, signal?: AbortSignal): Promise<{ config: Record<string, string> } | undefined>;
  patchConfig(name: string, config: Record<string, string>, signal?: AbortSignal): Promise<void>;
}

/** Options of {@linkcode JobProofQueue}. */
export interface JobProofQueueOptions {
  hostId: string;
  key: SigningKey;
  /** `capacity.max_runners`; the queue holds max(1, this). */
  maxRunners: number;
  instances: ProofCommitter;
  project: string;
  scaleSetName: string;
  /** The resolved scale set's id (known once the listener resolved it). */
  scaleSetId: () => number | undefined;
  logger: Logger;
  now?: () => number;
  /** Jobs remembered for redelivery. @default {4096} */
  remember?: number;
}

type Fields = Omit<JobProofPayload, "version" | "times"> & {
  times: Omit<JobProofPayload["times"], "signed_at">;
};

/** The job-proof queue and its worker. */
export class JobProofQueue {
  readonly capacity: number;
  #options: JobProofQueueOptions;
  #queue: { instance: string; fields: Fields }[] = [];
  #seen = new Set<number>();
  #wake: (() => void) | undefined;

  constructor(options: JobProofQueueOptions) {
    this.#options = options;
    this.capacity = Math.max(1, options.maxRunners);
  }

  /** Queues one JobStarted for signing; false when it was malformed, a repeat or the queue full. */
  offer(job: JobMessage, instanceName: string): boolean {
    try {
      const fields = this.#fieldsOf(job, instanceName);
      if (!fields) {
        this.#options.logger.warn("job proof skipped: malformed JobStarted", {
          runner: instanceName,
        });
        return false;
      }
      const id = fields.job.runner_request_id;
      if (this.#seen.has(id)) return false; // redelivered: the first attempt stands
      if (this.#queue.length >= this.capacity) {
        this.#options.logger.warn("job proof skipped: queue full", { runner: instanceName });
        return false;
      }
      this.#remember(id);
      this.#queue.push({ instance: instanceName, fields });
      this.#wake?.();
      return true;
    } catch {
      return false; // never disturbs the listener
    }
  }

  /** Jobs waiting to be signed. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Signs and commits queued jobs until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const next = this.#queue.shift();
      if (!next) {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
          signal.addEventListener("abort", () => resolve(), { once: true });
        });
        this.#wake = undefined;
        continue;
      }
      try {
        await this.#commit(next.instance, next.fields, signal);
      } catch (err) {
        this.#seen.delete(next.fields.job.runner_request_id); // a redelivery may try again
        this.#options.logger.warn("job proof not committed", {
          runner: next.instance,
          error: err instanceof Error ? err.name : "error",
        });
      }
    }
  }

  async #commit(instance: string, fields: Fields, signal: AbortSignal): Promise<void> {
    const current = await this.#options.instances.get(instance, signal);
    if (!current) throw new Error("instance not found");
    if (current.config[PROOF_CONFIG_KEY]) return; // committed before (redelivery after restart)
    const signedAt = new Date(this.#options.now?.() ?? Date.now()).toISOString();
    const payload = buildPayload({ ...fields, times: { ...fields.times, signed_at: signedAt } });
    const envelope = await signProof(this.#options.key, payload);
    await this.#options.instances.patchConfig(instance, { [PROOF_CONFIG_KEY]: envelope }, signal);
    this.#options.logger.info("job proof committed", {
      runner: instance,
      runner_request_id: fields.job.runner_request_id,
    });
  }

  #remember(id: number): void {
    this.#seen.add(id);
    if (this.#seen.size > (this.#options.remember ?? 4096)) {
      this.#seen.delete(this.#seen.values().next().value!);
    }
  }

  #fieldsOf(job: JobMessage, instance: string): Fields | undefined {
    const scaleSetId = this.#options.scaleSetId();
    const str = (v: unknown): v is string => typeof v === "string";
    const id = (v: unknown): v is number =>
      typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
    if (job.messageType !== "JobStarted" || !id(scaleSetId) || !id(job.runnerId)) return;
    if (!str(job.runnerName) || job.runnerName !== instance) return;
    if (!id(job.runnerRequestId) || !id(job.workflowRunId)) return;
    if (!str(job.ownerName) || !str(job.repositoryName)) return;
    if (!str(job.jobWorkflowRef) || !str(job.jobDisplayName) || !str(job.eventName)) return;
    if (!str(job.queueTime) || !isRfc3339Utc(job.queueTime)) return;
    if (!str(job.runnerAssignTime) || !isRfc3339Utc(job.runnerAssignTime)) return;
    const fields: Fields = {
      "host_id": this.#options.hostId,
      "scale_set": { id: scaleSetId, name: this.#options.scaleSetName },
      runner: { id: job.runnerId, name: job.runnerName },
      instance: { project: this.#options.project, name: instance },
      job: {
        "runner_request_id": job.runnerRequestId,
        repository: `${job.ownerName}/${job.repositoryName}`,
        "workflow_ref": job.jobWorkflowRef,
        "workflow_run_id": job.workflowRunId,
        "job_display_name": job.jobDisplayName,
        "event_name": job.eventName,
      },
      times: { "queued_at": job.queueTime, "assigned_at": job.runnerAssignTime },
    };
    try {
      buildPayload({ ...fields, times: { ...fields.times, "signed_at": "1970-01-01T00:00:00Z" } });
      return fields;
    } catch {
      return undefined;
    }
  }
}
