/**
 * A process's lifecycle: one shutdown-started signal that every part can observe (readiness turns
 * `draining`, loops stop, long polls end), started by SIGTERM/SIGINT or by code, and the
 * background tasks that run until it. {@linkcode startServer} (`@svc/shared/server`) takes a
 * lifecycle to drive its shutdown delay and drain; a process without listeners (runner-ctl) uses
 * one alone: start tasks, wait for the shutdown, stop the tasks within a bound.
 *
 * Once a signal has started the shutdown, the same stop signals repeated later never end the
 * process in its place: the graceful stop goes on, and the process ends with its own exit code.
 * Repeats are the rule, not the exception: a terminal's Ctrl-C reaches the whole process group
 * and `deno task` (or any wrapper) forwards the signal once more, and a supervisor's SIGTERM may
 * follow. While the lifecycle listens, a repeat finds the shutdown already started; after
 * {@linkcode Lifecycle.close}, a process-wide listener that does nothing takes the repeats until
 * the process exits (without it, Deno's default action would end the process with 130 or 143 in
 * the moment between the stop and the exit). A stuck process is ended by SIGKILL, as systemd and
 * `deno task dev` do after their grace. A lifecycle closed after a shutdown started by code leaves
 * the signals' default actions as they were.
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
  /**
   * Stops listening for OS signals (the shutdown itself is not started). Idempotent. After a
   * shutdown started by a signal, later stop signals are ignored until the process exits (see
   * the module's documentation).
   */
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
    const trigger = (controller.signal.reason as ShutdownStarted | undefined)?.trigger;
    // Added before ours go: removing the last listener restores the default action at once.
    if (listeners.has(trigger as Deno.Signal)) ignoreRepeats(signals);
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

let repeatsIgnored = false;

/** Keeps the stop signals from ending the process until it exits (once per process). */
function ignoreRepeats(signals: readonly Deno.Signal[]): void {
  if (repeatsIgnored) return;
  repeatsIgnored = true;
  for (const s of signals) Deno.addSignalListener(s, () => {});
}
