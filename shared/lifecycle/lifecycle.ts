/**
 * A process's lifecycle: one shutdown-started signal that every part can observe (readiness turns
 * `draining`, loops stop, long polls end), started by SIGTERM/SIGINT or by code, and the
 * background tasks that run until it. {@linkcode startServer} (`@svc/shared/server`) takes a
 * lifecycle to drive its shutdown delay and drain; a process without listeners (runner-ctl) uses
 * one alone: start tasks, wait for the shutdown, stop the tasks within a bound.
 *
 * @module
 */
import type { Logger } from "../observe/log.ts";
import { createBackgroundTasks, type Task, type TasksReport } from "./background_tasks.ts";
import { reportUncaughtTo } from "./uncaught_guard.ts";

/** Options of {@linkcode createLifecycle}. */
export interface LifecycleOptions {
  /**
   * Logs task failures and tasks left running; until {@linkcode Lifecycle.close}, also the
   * process guard's lines about unhandled rejections (`installUncaughtGuard`).
   */
  logger?: Logger;
  /** Starts the shutdown on SIGTERM and SIGINT (SIGINT only on Windows). @default {true} */
  handleSignals?: boolean;
  /** Called once for each background task that fails (see `createBackgroundTasks`). */
  onTaskError?: (name: string, error: unknown) => void;
}

/** A process's lifecycle. */
export interface Lifecycle {
  /** Aborts when the shutdown starts; `reason` is a {@linkcode ShutdownStarted}. */
  readonly signal: AbortSignal;
  /** Starts the shutdown (aborts {@linkcode Lifecycle.signal}); later calls do nothing. */
  shutdown(cause?: string): void;
  /** Resolves with the cause (`SIGTERM`, `SIGINT` or the one given) once the shutdown starts. */
  untilShutdown(): Promise<string>;
  /**
   * Starts a background task whose signal aborts when the shutdown starts.
   * @throws {Error} when a task of that name runs or the tasks are stopping.
   */
  spawn(name: string, task: Task): void;
  /** Starts the shutdown if needed, then stops the tasks within `timeoutMs` (default 30 s). */
  stopTasks(options?: { timeoutMs?: number }): Promise<TasksReport>;
  /** Stops listening for OS signals (the shutdown itself is not started). Idempotent. */
  close(): void;
}

/** The `reason` of an aborted {@linkcode Lifecycle.signal}. */
export class ShutdownStarted extends DOMException {
  /** `SIGTERM`, `SIGINT`, or the cause passed to {@linkcode Lifecycle.shutdown}. */
  readonly trigger: string;
  /**
   * Creates the abort reason.
   * @param trigger what started the shutdown
   */
  constructor(trigger: string) {
    super(`Shutting down: ${trigger}`, "AbortError");
    this.trigger = trigger;
  }
}

/**
 * Creates a lifecycle; with `handleSignals` (the default) SIGTERM and SIGINT start its shutdown.
 *
 * @example A controller loop that stops on shutdown
 * ```ts
 * import { createLifecycle, runEvery } from "@svc/shared/lifecycle";
 * import assert from "node:assert/strict";
 * const lifecycle = createLifecycle({ handleSignals: false });
 * let reconciled = 0;
 * lifecycle.spawn("reconcile", (signal) =>
 *   runEvery(() => void reconciled++, { intervalMs: 1_000, signal }));
 * lifecycle.shutdown("test"); // in a service: SIGTERM
 * assert.equal(await lifecycle.untilShutdown(), "test");
 * const report = await lifecycle.stopTasks({ timeoutMs: 30_000 });
 * assert.deepEqual(report.stopped, ["reconcile"]);
 * lifecycle.close();
 * ```
 */
export function createLifecycle(options: LifecycleOptions = {}): Lifecycle {
  const { logger, handleSignals = true } = options;
  const controller = new AbortController();
  const tasks = createBackgroundTasks({
    logger,
    onError: options.onTaskError,
    signal: controller.signal,
  });
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGTERM", "SIGINT"];
  const listeners = new Map<Deno.Signal, () => void>();
  const giveBackLogger = logger ? reportUncaughtTo(logger) : () => {};
  if (handleSignals) {
    for (const s of signals) {
      const listener = () => shutdown(s);
      listeners.set(s, listener);
      Deno.addSignalListener(s, listener);
    }
  }
  const started = new Promise<string>((resolve) =>
    controller.signal.addEventListener(
      "abort",
      () => resolve((controller.signal.reason as ShutdownStarted).trigger),
      { once: true },
    )
  );

  function shutdown(cause = "requested"): void {
    if (!controller.signal.aborted) controller.abort(new ShutdownStarted(cause));
  }

  function close(): void {
    giveBackLogger();
    for (const [s, listener] of listeners) Deno.removeSignalListener(s, listener);
    listeners.clear();
  }

  return {
    signal: controller.signal,
    shutdown,
    untilShutdown: () => started,
    spawn: (name, task) => tasks.start(name, task),
    stopTasks(stopOptions) {
      shutdown();
      return tasks.stop(stopOptions);
    },
    close,
  };
}
