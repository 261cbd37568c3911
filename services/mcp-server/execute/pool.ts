/**
 * A pool of execute workers. Each runs in a `node:worker_threads` Worker with a V8 heap limit, so
 * a runaway allocation halts that worker, not the server; a watchdog terminates a worker that
 * overruns its deadline (also how a heap-limit halt is noticed: Deno stops the isolate without an
 * event) and a fresh one takes its place. Callers wait for a free worker, which goes to the
 * waiting caller (`key`, e.g. the subject) with the fewest jobs running and, among those, the one
 * served least recently: one caller's flood of jobs cannot starve the others.
 *
 * @example
 * ```ts ignore
 * const pool = new ExecutePool({ size: 2, heapMb: 96, queueMs: 10_000 });
 * const outcome = await pool.run(job, { deadlineMs: 6000, onCall, signal });
 * pool.close();
 * ```
 * @module
 */
import type { MessagePort, Worker } from "node:worker_threads";
import type { ReplyReceiver } from "./channel.ts";
import { lazyModuleAt } from "@svc/shared/lazy-module";
import type { CallMessage, CallReply, DoneMessage, JobMessage } from "./protocol.ts";
import { DeadlineError, ErrorText, ToolError } from "../tools/errors.ts";
import type { Limits } from "../limits.ts";

/** Options of {@linkcode ExecutePool}. */
export interface ExecutePoolOptions {
  /** Workers running at once. */
  size: number;
  /** Old-generation heap limit of each worker, MiB. */
  heapMb: number;
  /** How long `run` waits for a free worker before failing with a DeadlineError. */
  queueMs: number;
  /**
   * Jobs that may wait for a free worker; `run` fails at once with `resource limit exceeded`
   * beyond them, so waiting jobs (and what their requests hold) stay bounded. @default Infinity
   */
  maxQueued?: number;
  /** Jobs a worker runs before it is replaced. @default 500 */
  jobsPerWorker?: number;
}

/** How one job ended at the pool level. */
export type PoolOutcome =
  | { type: "done"; result: DoneMessage["result"] }
  | { type: "overrun" } // deadline passed (or heap limit halted the worker)
  | { type: "canceled" }
  | { type: "crashed"; error: unknown };

/** Per-job hooks. */
export interface RunOptions {
  /** Hard deadline of the job, measured from when a worker picks it up. */
  deadlineMs: number;
  /** Answers a capability call. */
  onCall: (call: CallMessage) => Promise<CallReply>;
  /** Cancels the job (the worker is terminated and replaced). */
  signal?: AbortSignal;
  /** Who the job is for (fair share between callers). @default "" */
  key?: string;
}

/**
 * `node:worker_threads` and the reply channel (which imports it), loaded with the first worker:
 * importing any `node:` module loads Deno's Node compatibility layer, which would otherwise weigh
 * on the server's start-up although no worker starts before the first execute call. By URL
 * (shared/lifecycle/lazy_module.ts says why; `channel.ts` is in mcp-server's `include`).
 */
let loading: Promise<void> | undefined;
let loaded: {
  threads: typeof import("node:worker_threads");
  channel: typeof import("./channel.ts");
} | undefined;

const threadsModule = lazyModuleAt<typeof import("node:worker_threads")>(
  import.meta.resolve("node:worker_threads"),
);
const channelModule = lazyModuleAt<typeof import("./channel.ts")>(
  import.meta.resolve("./channel.ts"),
);

function loadThreads(): Promise<void> {
  return loading ??= Promise.all([threadsModule(), channelModule()])
    .then(([threads, channel]) => {
      loaded = { threads, channel };
    });
}

interface Waiter {
  key: string;
  take: (slot: Slot) => void;
}

interface Share {
  running: number;
  waiting: number;
  /** Order of this key's latest grant (0: never). */
  served: number;
}

interface Slot {
  worker: Worker;
  ready: Promise<void>;
  jobs: number;
  /** The main thread's end of the worker's reply channel. */
  port: MessagePort;
  /** The channel's wake-up counter. */
  signal: SharedArrayBuffer;
}

/** Runs Starlark jobs on bounded, heap-limited workers. */
export class ExecutePool {
  #idle: Slot[] = [];
  #live = 0;
  #waiters: Waiter[] = [];
  /** Keys with jobs running or waiting. */
  #shares = new Map<string, Share>();
  #grants = 0;
  #closed = false;
  readonly #opts: Required<ExecutePoolOptions>;

  /** Creates an empty pool; workers start on demand. */
  constructor(options: ExecutePoolOptions) {
    this.#opts = { maxQueued: Infinity, jobsPerWorker: 500, ...options };
  }

  /** Jobs waiting for a free worker. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /**
   * Runs one job on a free worker.
   * @throws {DeadlineError} when no worker frees up in time.
   * @throws {ToolError} `resource limit exceeded` when `maxQueued` jobs already wait.
   */
  async run(job: Omit<JobMessage, "type">, options: RunOptions): Promise<PoolOutcome> {
    const key = options.key ?? "";
    const share = this.#shares.get(key) ?? { running: 0, waiting: 0, served: 0 };
    this.#shares.set(key, share);
    let slot: Slot;
    share.waiting++;
    try {
      slot = await this.#acquire(key, options.signal);
      share.running++;
      share.served = ++this.#grants;
    } finally {
      share.waiting--;
      if (share.running === 0 && share.waiting === 0) this.#shares.delete(key);
    }
    try {
      return await this.#runAcquired(slot, job, options);
    } finally {
      if (--share.running === 0 && share.waiting === 0) this.#shares.delete(key);
    }
  }

  async #runAcquired(
    slot: Slot,
    job: Omit<JobMessage, "type">,
    options: RunOptions,
  ): Promise<PoolOutcome> {
    if (options.signal?.aborted) {
      this.#release(slot);
      return { type: "canceled" };
    }
    let healthy = false;
    slot.worker.ref(); // a running job keeps the process alive; an idle worker does not
    try {
      await slot.ready;
      const outcome = await this.#runOn(slot, job, options);
      healthy = outcome.type === "done";
      return outcome;
    } catch (error) {
      return { type: "crashed", error };
    } finally {
      if (healthy && ++slot.jobs < this.#opts.jobsPerWorker) this.#release(slot);
      else this.#discard(slot);
    }
  }

  /** Terminates every worker; pending and later runs fail. */
  close(): void {
    this.#closed = true;
    for (const slot of this.#idle) this.#stop(slot);
    this.#idle = [];
  }

  /** Starts a worker; `node:worker_threads` is loaded (see {@linkcode loadThreads}). */
  #spawn(): Slot {
    const { threads: { MessageChannel, Worker }, channel } = loaded!;
    const { port1, port2 } = new MessageChannel();
    const signal = channel.createReplySignal();
    const worker = new Worker(new URL("./worker.ts", import.meta.url), {
      resourceLimits: {
        maxOldGenerationSizeMb: this.#opts.heapMb,
        maxYoungGenerationSizeMb: youngGenerationMb(this.#opts.heapMb),
      },
      workerData: { port: port2, signal } satisfies ReplyReceiver,
      transferList: [port2],
    });
    const ready = new Promise<void>((resolve, reject) => {
      worker.once("message", () => resolve());
      worker.once("error", reject);
    });
    ready.catch(() => {});
    this.#live++;
    return { worker, ready, jobs: 0, port: port1, signal };
  }

  /** Ends a worker for good: its isolate, its heap and its reply channel go. */
  #stop(slot: Slot): void {
    slot.worker.removeAllListeners();
    slot.worker.terminate().catch(() => {});
    slot.port.close();
  }

  #acquire(key: string, signal?: AbortSignal): Promise<Slot> {
    if (this.#closed) return Promise.reject(new Error("Cannot run: the pool is closed"));
    const idle = this.#idle.pop();
    if (idle) return Promise.resolve(idle);
    if (this.#live < this.#opts.size) {
      if (loaded) return Promise.resolve(this.#spawn());
      this.#live++; // the slot is taken while the module loads
      return loadThreads().then(() => {
        this.#live--;
        return this.#spawn();
      }, (err) => {
        this.#live--;
        throw err;
      });
    }
    if (this.#waiters.length >= this.#opts.maxQueued) {
      return Promise.reject(new ToolError(ErrorText.resourceLimit));
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((queued) => queued !== waiter);
        reject(new DeadlineError("no execute worker became free in time"));
      }, this.#opts.queueMs);
      const take = (slot: Slot) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", abort);
        resolve(slot);
      };
      const abort = () => {
        this.#waiters = this.#waiters.filter((queued) => queued !== waiter);
        clearTimeout(timer);
        reject(signal?.reason ?? new DOMException("canceled", "AbortError"));
      };
      const waiter = { key, take };
      signal?.addEventListener("abort", abort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  /** Removes and returns the waiter whose key runs fewest jobs, then was served least recently. */
  #nextWaiter(): Waiter["take"] | undefined {
    let best = -1;
    let bestRank: [number, number] = [Infinity, Infinity];
    for (let i = 0; i < this.#waiters.length; i++) {
      const share = this.#shares.get(this.#waiters[i].key);
      const rank: [number, number] = [share?.running ?? 0, share?.served ?? 0];
      if (rank[0] < bestRank[0] || (rank[0] === bestRank[0] && rank[1] < bestRank[1])) {
        best = i;
        bestRank = rank;
      }
    }
    return best < 0 ? undefined : this.#waiters.splice(best, 1)[0].take;
  }

  #release(slot: Slot): void {
    if (this.#closed) {
      this.#discard(slot);
      return;
    }
    const waiter = this.#nextWaiter();
    if (waiter) waiter(slot);
    else {
      slot.worker.unref();
      this.#idle.push(slot);
    }
  }

  #discard(slot: Slot): void {
    this.#stop(slot);
    this.#live--;
    const waiter = this.#nextWaiter();
    if (waiter && !this.#closed) waiter(this.#spawn());
  }

  #runOn(
    slot: Slot,
    job: Omit<JobMessage, "type">,
    options: RunOptions,
  ): Promise<PoolOutcome> {
    const { worker, port, signal } = slot;
    const { sendReply } = loaded!.channel; // loaded: the slot's worker exists
    const reply = (id: number, value: CallReply) => sendReply(port, signal, id, value);
    return new Promise<PoolOutcome>((resolve) => {
      const finish = (outcome: PoolOutcome) => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        worker.off("message", onMessage);
        worker.off("error", onError);
        worker.off("exit", onExit);
        resolve(outcome);
      };
      const onMessage = (msg: CallMessage | DoneMessage) => {
        if (msg.type === "done") return finish({ type: "done", result: msg.result });
        options.onCall(msg).then((value) => {
          try {
            reply(msg.id, value);
          } catch { // a value the structured clone refuses: the program gets a failure, not a hang
            reply(msg.id, { ok: false, text: ErrorText.internal });
          }
        }, () => reply(msg.id, { ok: false, text: ErrorText.internal }));
      };
      const onError = (error: unknown) => finish({ type: "crashed", error });
      const onExit = () => finish({ type: "crashed", error: new Error("worker exited") });
      const onAbort = () => finish({ type: "canceled" });
      const timer = setTimeout(() => finish({ type: "overrun" }), options.deadlineMs);
      options.signal?.addEventListener("abort", onAbort, { once: true });
      worker.on("message", onMessage);
      worker.on("error", onError);
      worker.on("exit", onExit);
      worker.postMessage({ type: "job", ...job } satisfies JobMessage);
    });
  }
}

/** Young-generation limit of a worker, MiB: an eighth of its heap, at least 4. */
export function youngGenerationMb(heapMb: number): number {
  return Math.max(4, Math.floor(heapMb / 8));
}

/**
 * Creates the pool a capability server would create for these limits. Here, not beside the
 * server, so that the entry point makes one without loading the MCP SDK.
 */
export function createExecutePool(limits: Limits): ExecutePool {
  return new ExecutePool({
    size: limits.maxConcurrentExecutions,
    heapMb: limits.workerHeapMb,
    queueMs: limits.executionQueueMs,
    maxQueued: limits.maxQueuedExecutions,
  });
}
