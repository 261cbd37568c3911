/**
 * The one backoff every runner failure feeds. A runner that fails before it takes a job
 * (registration refused, instance not created or not started, not Ready within
 * `incus.bootstrap_timeout`, instance stopped or gone before a job), and every check that finds
 * `incus.image` gone (no runner could be created), holds back the next create:
 * after the k-th failure in a row the controller waits a time drawn from
 * [max(initial, b/2), b] with b = min(maximum, initial·2^(k−1)), and from the
 * {@linkcode ESCALATE_AFTER}-th on b is the maximum. A runner that reaches Ready (or takes a job)
 * resets it. ARC's ephemeral-runner controller counts per runner, waits 0, 5, 10, 20, 40, 80 s
 * and gives a runner up past 5 failures; here the count is per controller (every attempt is a new
 * VM; the cause is shared), the first wait is already `retry.initial` (a broken image must not be
 * recreated at once), and the controller never gives up: it escalates once, then keeps trying at
 * the maximum, so a fixed image or profile is picked up without a restart.
 *
 * @module
 */
import type { RetryPolicy } from "../github/http.ts";

/** Why a runner failed before it took a job (the `kind` of its log record). */
export type FailureKind =
  | "registration_failed"
  | "start_failed"
  | "bootstrap_timeout"
  | "stopped_before_job"
  | "vanished_before_job"
  | "image_missing";

/**
 * Failures in a row after which the controller logs one error naming the likely cause, and from
 * which every wait is the maximum: ARC's count before it marks a runner Failed.
 */
export const ESCALATE_AFTER = 5;

/** What to check first, per kind (the escalation record's `likely_cause`). */
export const LIKELY_CAUSE: Record<FailureKind, string> = {
  "registration_failed":
    "GitHub refuses runner registrations: check the credential's permissions and the scale set",
  "start_failed":
    "Incus cannot create or start the VM: check incus.image (a VM image) and the pinned profiles " +
    "(storage pool, network, limits)",
  "bootstrap_timeout":
    "the guest never reported Ready: check that incus.image runs incus-agent and the runner " +
    "bootstrap, and that the profile gives it enough memory, CPU and network",
  "stopped_before_job":
    "the guest powered off before a job: check the image's runner bootstrap (it reads " +
    "user.runner-ctl-jitconfig from /dev/incus/sock) and the profile's limits",
  "vanished_before_job":
    "the instance was deleted outside the controller before it took a job: check who else " +
    "manages instances with this owner tag",
  "image_missing":
    "incus.image names no image any more: import the image again under that alias or " +
    "fingerprint, or change incus.image",
};

/**
 * The wait after `failures` (≥ 1) failures in a row, in milliseconds: within
 * [`retry.initial`, `retry.maximum`], drawn with `random` (the low end without it).
 */
export function failureWaitMs(
  retry: RetryPolicy,
  failures: number,
  random?: () => number,
): number {
  const k = Math.max(1, failures);
  const high = k >= ESCALATE_AFTER
    ? retry.maximumMs
    : Math.min(retry.maximumMs, retry.initialMs * 2 ** Math.min(k - 1, 30));
  const low = Math.min(high, Math.max(retry.initialMs, high / 2));
  return random ? Math.round(low + random() * (high - low)) : low;
}

/** One failure as recorded. */
export interface RecordedFailure {
  /** Failures in a row, this one included. */
  failures: number;
  /** The wait now in effect. */
  waitMs: number;
  /** No runner is created before this time (ms). */
  retryAt: number;
  /** True once per run of failures: at the {@linkcode ESCALATE_AFTER}-th. */
  escalate: boolean;
}

/** Options of {@linkcode FailureBackoff}. */
export interface FailureBackoffOptions {
  retry: RetryPolicy;
  /** Random source in [0, 1) for the jitter; the low end of each range without it. */
  random?: () => number;
}

/** The controller's failure count and the time before which it creates no runner. */
export class FailureBackoff {
  /** Failures in a row since the last reset. */
  failures = 0;
  /** No runner is created before this time (ms). */
  retryAt = 0;
  readonly #options: FailureBackoffOptions;

  constructor(options: FailureBackoffOptions) {
    this.#options = options;
  }

  /** Records a failure at `now`. */
  fail(now: number): RecordedFailure {
    this.failures++;
    const waitMs = failureWaitMs(this.#options.retry, this.failures, this.#options.random);
    this.retryAt = now + waitMs;
    return {
      failures: this.failures,
      waitMs,
      retryAt: this.retryAt,
      escalate: this.failures === ESCALATE_AFTER,
    };
  }

  /** A runner reached Ready or took a job; returns the count it cleared (0: nothing to reset). */
  reset(): number {
    const n = this.failures;
    this.failures = 0;
    this.retryAt = 0;
    return n;
  }

  /** Whether a runner may be created at `now`. */
  allows(now: number): boolean {
    return now >= this.retryAt;
  }
}
