/** Per-run execution state: budgets, step counter, host-call log. */
import { LimitError } from "./errors.ts";
import type { Value } from "./values/value.ts";

/** Steps between wall-clock checks (keeps the hot path to one comparison). */
const TIME_CHECK_INTERVAL = 2048;

export interface ThreadOptions {
  maxSteps?: number;
  timeoutMs?: number;
  maxHostCalls?: number;
  maxDepth?: number;
  maxBytes?: number;
  now?: () => number;
  print?: (line: string) => void;
}

export class Thread {
  steps = 0;
  /** Next step count at which `slowStep` runs (min of maxSteps and next time check). */
  limit = 0;
  readonly maxSteps: number;
  readonly deadline: number;
  readonly now: () => number;
  hostCalls = 0;
  readonly maxHostCalls: number;
  readonly maxDepth: number;
  readonly maxBytes: number;
  readonly print: (line: string) => void;
  /** Predeclared values by name. */
  predeclared = new Map<string, Value>();
  /** Whether host functions may be called right now. */
  hostAllowed = true;
  /** Results of host calls made so far, replayed on re-execution (see run.ts). */
  hostLog: { ok: boolean; value: unknown }[] = [];
  hostIndex = 0;
  /** Current Starlark frame (for builtins that need the caller's position). */
  // deno-lint-ignore no-explicit-any
  fr: any = null;
  /** `load` hook (conformance harness only). */
  loader: ((module: string, name: string) => Value) | null = null;
  /** Arbitrary per-embedding data (e.g. conformance harness state). */
  local = new Map<string, unknown>();

  constructor(opts: ThreadOptions = {}) {
    this.maxSteps = opts.maxSteps ?? Infinity;
    this.now = opts.now ?? (() => performance.now());
    this.deadline = opts.timeoutMs !== undefined ? this.now() + opts.timeoutMs : Infinity;
    this.maxHostCalls = opts.maxHostCalls ?? Infinity;
    this.maxDepth = opts.maxDepth ?? Infinity;
    this.maxBytes = opts.maxBytes ?? Infinity;
    this.print = opts.print ?? (() => {});
    this.resetLimit();
  }

  private resetLimit(): void {
    const next = this.deadline === Infinity ? Infinity : this.steps + TIME_CHECK_INTERVAL;
    this.limit = Math.min(this.maxSteps, next);
  }

  /** One step; cheap inline check. */
  step(): void {
    if (++this.steps > this.limit) this.slowStep();
  }

  /** Charge `n` steps for work proportional to input size. */
  charge(n: number): void {
    this.steps += n;
    if (this.steps > this.limit) this.slowStep();
  }

  slowStep(): void {
    if (this.steps > this.maxSteps) {
      throw new LimitError("max_steps", "Starlark computation cancelled: too many steps");
    }
    this.checkTime();
    this.resetLimit();
  }

  checkTime(): void {
    if (this.now() > this.deadline) {
      throw new LimitError("timeout", "Starlark computation cancelled: timeout");
    }
  }

  /** Refuse to build a value of `bytes` size past the maxBytes budget. */
  checkAlloc(bytes: number): void {
    if (bytes > this.maxBytes) {
      throw new LimitError(
        "max_bytes",
        `Starlark computation cancelled: value size ${bytes} exceeds limit ${this.maxBytes}`,
      );
    }
  }
}
