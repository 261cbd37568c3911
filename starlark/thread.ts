/** Per-run execution state: budgets, step counter, allocation meter, host-call log. */
import type { ErrorCode } from "./api_types.ts";
import { getHeapStatistics } from "node:v8";
import { LimitError } from "./errors.ts";
import type { Value } from "./values/value.ts";

/**
 * Allocation ceiling whatever the budgets: a fifth of V8's heap limit, so that even a program
 * run with `maxAllocBytes: Infinity` stops with `max_alloc` before V8 would abort the process
 * (the live heap stays within a small multiple of the bytes charged).
 */
const HARD_ALLOC_CAP = Math.floor(getHeapStatistics().heap_size_limit / 5);

/** Steps between wall-clock checks (keeps the hot path to one comparison). */
const TIME_CHECK_INTERVAL = 2048;

export interface ThreadOptions {
  maxSteps?: number;
  timeoutMs?: number;
  maxHostCalls?: number;
  maxDepth?: number;
  maxBytes?: number;
  maxAllocBytes?: number;
  /**
   * Live-heap probe (bytes); see {@linkcode Thread.alloc}. Only where the heap is the run's own.
   */
  heapUsed?: () => number;
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
  /** Bytes charged so far for values the program built (see `alloc`). */
  allocated = 0;
  readonly maxAllocBytes: number;
  readonly heapUsed: (() => number) | null;
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
  /** The first budget error raised (reported even if a builtin re-wrapped it on the way). */
  tripped: LimitError | null = null;
  /** Arbitrary per-embedding data (e.g. conformance harness state). */
  local = new Map<string, unknown>();
  /**
   * Identity hashes of the objects this run hashed by identity (functions in tuple keys, bound
   * methods), numbered from 1 in order of first use: per run, so a run's hashes, and the steps
   * its dict operations take, do not depend on what ran before it in the process.
   */
  private readonly identities = new WeakMap<object, number>();
  private nextIdentity = 1;

  constructor(opts: ThreadOptions = {}) {
    this.maxSteps = opts.maxSteps ?? Infinity;
    this.now = opts.now ?? (() => performance.now());
    this.deadline = opts.timeoutMs !== undefined && opts.timeoutMs !== Infinity
      ? this.now() + opts.timeoutMs
      : Infinity;
    this.maxHostCalls = opts.maxHostCalls ?? Infinity;
    this.maxDepth = opts.maxDepth ?? Infinity;
    this.maxBytes = opts.maxBytes ?? Infinity;
    this.maxAllocBytes = Math.min(opts.maxAllocBytes ?? Infinity, HARD_ALLOC_CAP);
    this.heapUsed = opts.heapUsed ?? null;
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

  /** Charge `n` steps for work proportional to input size (checks the clock past 2048). */
  charge(n: number): void {
    this.steps += n;
    if (this.steps > this.limit) this.slowStep();
  }

  slowStep(): void {
    if (this.steps > this.maxSteps) {
      this.fail("max_steps", "Starlark computation cancelled: too many steps");
    }
    this.checkTime();
    this.resetLimit();
  }

  checkTime(): void {
    if (this.now() > this.deadline) {
      this.fail("timeout", "Starlark computation cancelled: timeout");
    }
  }

  /** A stable small number for `o` within this run (its identity hash). */
  identity(o: object): number {
    let id = this.identities.get(o);
    if (id === undefined) {
      id = this.nextIdentity++;
      this.identities.set(o, id);
    }
    return id;
  }

  /** Throw (and remember) a budget error. */
  fail(code: ErrorCode, message: string): never {
    const e = new LimitError(code, message);
    this.tripped ??= e;
    throw e;
  }

  /** Refuse to build a value of `bytes` size past the maxBytes budget. */
  checkAlloc(bytes: number): void {
    if (bytes > this.maxBytes) {
      this.fail(
        "max_bytes",
        `Starlark computation cancelled: value size ${bytes} exceeds limit ${this.maxBytes}`,
      );
    }
  }

  /**
   * Charge `bytes` against maxAllocBytes before they are allocated (cumulative: bytes freed by
   * the garbage collector are not given back, so the live heap never exceeds the total). With a
   * `heapUsed` probe, passing the budget first asks the heap: when it holds at most the budget,
   * the run goes on and the meter restarts at max(heap, budget / 2), so dropped garbage stops
   * counting while the heap still stays within 1.5 × the budget between probes.
   */
  alloc(bytes: number): void {
    if ((this.allocated += bytes) > this.maxAllocBytes) this.allocFailed();
  }

  /** Past the budget: continue if the heap probe allows it, else fail with `max_alloc`. */
  allocFailed(): void {
    if (this.heapUsed) {
      const live = this.heapUsed();
      if (live <= this.maxAllocBytes) {
        this.allocated = Math.max(live, this.maxAllocBytes / 2);
        return;
      }
    }
    this.fail(
      "max_alloc",
      this.maxAllocBytes === HARD_ALLOC_CAP
        ? `Starlark computation cancelled: allocations reached ${HARD_ALLOC_CAP} bytes, ` +
          "a fifth of the JS heap limit"
        : `Starlark computation cancelled: allocation budget of ${this.maxAllocBytes} bytes exceeded`,
    );
  }

  /** Steps and bytes for building a value of `bytes` bytes: maxBytes, maxAllocBytes, steps. */
  build(bytes: number): void {
    if (bytes > this.maxBytes) this.checkAlloc(bytes);
    if ((this.allocated += bytes) > this.maxAllocBytes) this.allocFailed();
    this.steps += bytes >> 6;
    if (this.steps > this.limit) this.slowStep();
  }
}

/** Bytes charged for a value's fixed part and per element (a small fraction of V8's sizes). */
export const SEQ_BYTES = 64, ELEM_BYTES = 8, DICT_BYTES = 128, ENTRY_BYTES = 96, STR_BYTES = 24;
/** Floats are boxed (an object and a heap number); most die young, so charged lightly. */
export const FLOAT_BYTES = 16;

/** A thread with no budgets: the meter of code running outside any program. */
const UNMETERED = new Thread();

/**
 * The thread of the program running on this JS thread (execution is synchronous, so there is
 * one at a time; a nested run saves and restores it). Lets value operations that receive no
 * thread (equality, ordering, hashing) charge their work and allocations.
 */
export let current: Thread = UNMETERED;

/** Charge a new string of `s.length` bytes to the current thread; returns `s`. */
export function newStr(s: string): string {
  current.alloc(STR_BYTES + s.length);
  return s;
}

/** Make `th` the current thread; returns the previous one (restore it with `enter` again). */
export function enter(th: Thread | null): Thread {
  const prev = current;
  current = th ?? UNMETERED;
  return prev;
}
