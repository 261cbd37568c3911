/**
 * Background tasks (a reconcile loop, a readiness probe, a queue consumer): each task gets an
 * `AbortSignal`; {@linkcode BackgroundTasks.stop} aborts them all and waits for them within a
 * bound, so shutdown never hangs on a task that ignores its signal. A task that fails is
 * reported (log line and `onError`) whether it fails while running or while stopping.
 *
 * @module
 */
import type { Logger } from "../observe/log.ts";
import { delay } from "./delay.ts";

/** A background task: runs until `signal` aborts (or its work is done). */
export type Task = (signal: AbortSignal) => Promise<void> | void;

/** How the tasks ended, by name. */
export interface TasksReport {
  /** Ended without error (before or during the stop). */
  stopped: string[];
  /** Threw (an abort after the stop began does not count as a failure). */
  failed: string[];
  /** Still running when the bound ran out; their promises are left behind. */
  abandoned: string[];
}

/** Options of {@linkcode createBackgroundTasks}. */
export interface BackgroundTasksOptions {
  /** Failures are logged at error level (`background task failed`, field `task`). */
  logger?: Logger;
  /** Called once for each task that fails, e.g. to start a shutdown and exit 1. */
  onError?: (name: string, error: unknown) => void;
  /** When it aborts, every task's signal aborts too (shutdown started); stop() still awaits. */
  signal?: AbortSignal;
}

/** A group of background tasks. */
export interface BackgroundTasks {
  /**
   * Starts `task` now, under a unique `name` (used in logs and reports).
   * @throws {Error} when a task of that name runs or the group is stopping.
   */
  start(name: string, task: Task): void;
  /** Names of the tasks that have not ended yet. */
  running(): string[];
  /**
   * Aborts every task and waits until they end or `timeoutMs` passes. Idempotent: later calls
   * wait for the first stop.
   */
  stop(options?: { timeoutMs?: number }): Promise<TasksReport>;
}

/**
 * Creates an empty group of background tasks.
 *
 * @example Usage
 * ```ts
 * import { createBackgroundTasks, runEvery } from "@svc/shared/lifecycle";
 * import assert from "node:assert/strict";
 * const tasks = createBackgroundTasks();
 * let ticks = 0;
 * tasks.start("tick", (signal) => runEvery(() => void ticks++, { intervalMs: 10, signal }));
 * const report = await tasks.stop({ timeoutMs: 1_000 });
 * assert.deepEqual(report, { stopped: ["tick"], failed: [], abandoned: [] });
 * assert.ok(ticks >= 1);
 * ```
 */
export function createBackgroundTasks(options: BackgroundTasksOptions = {}): BackgroundTasks {
  const { logger, onError } = options;
  const controller = new AbortController();
  const abort = () =>
    controller.abort(new DOMException("Background tasks are stopping", "AbortError"));
  if (options.signal?.aborted) abort();
  options.signal?.addEventListener("abort", abort, { once: true });
  const running = new Map<string, Promise<void>>();
  const report: TasksReport = { stopped: [], failed: [], abandoned: [] };
  let stopping: Promise<TasksReport> | undefined;

  function start(name: string, task: Task): void {
    if (stopping) throw new Error(`Cannot start task "${name}": the tasks are stopping`);
    if (running.has(name)) throw new Error(`Cannot start task "${name}": it is already running`);
    const signal = controller.signal;
    let result: Promise<void> | void;
    try {
      result = task(signal);
    } catch (error) {
      result = Promise.reject(error);
    }
    const ended = Promise.resolve(result).then(
      () => {
        report.stopped.push(name);
        logger?.debug("background task ended", { task: name });
      },
      (error) => {
        if (signal.aborted && isAbort(error, signal)) {
          report.stopped.push(name);
          return;
        }
        report.failed.push(name);
        logger?.error("background task failed", { task: name, err: error });
        try {
          onError?.(name, error);
        } catch (err) {
          logger?.error("background task error handler failed", { task: name, err });
        }
      },
    ).finally(() => running.delete(name));
    running.set(name, ended);
  }

  function stop(stopOptions: { timeoutMs?: number } = {}): Promise<TasksReport> {
    const { timeoutMs = 30_000 } = stopOptions;
    stopping ??= (async () => {
      options.signal?.removeEventListener("abort", abort);
      abort();
      const bound = new AbortController();
      await Promise.race([
        Promise.allSettled(running.values()),
        delay(timeoutMs, { signal: bound.signal }).catch(() => {}),
      ]);
      bound.abort();
      report.abandoned = [...running.keys()];
      if (report.abandoned.length) {
        logger?.warn("background tasks did not stop in time", {
          tasks: report.abandoned,
          timeoutMs,
        });
      }
      return { ...report, stopped: [...report.stopped], failed: [...report.failed] };
    })();
    return stopping;
  }

  return { start, running: () => [...running.keys()], stop };
}

function isAbort(error: unknown, signal: AbortSignal): boolean {
  return error === signal.reason || (error instanceof Error && error.name === "AbortError") ||
    (error instanceof DOMException && error.name === "AbortError");
}
