/**
 * Process lifecycle: the shutdown-started signal, background tasks stopped within a bound, the
 * cached background readiness probe, and the abortable waits they are built from.
 *
 * @example A service's lifecycle
 * ```ts
 * import { createLifecycle, createReadinessProbe } from "@svc/shared/lifecycle";
 * import assert from "node:assert/strict";
 * const lifecycle = createLifecycle({ handleSignals: false });
 * const probe = createReadinessProbe({ check: () => {}, shutdownSignal: lifecycle.signal });
 * lifecycle.spawn("readiness", probe.run);
 * lifecycle.shutdown();
 * assert.deepEqual(probe.current(), { ready: false, reason: "draining" });
 * await lifecycle.stopTasks();
 * ```
 * @module
 */
export { delay, runEvery, type RunEveryOptions } from "./delay.ts";
export {
  type BackgroundTasks,
  type BackgroundTasksOptions,
  createBackgroundTasks,
  type Task,
  type TasksReport,
} from "./background_tasks.ts";
export {
  createLifecycle,
  type Lifecycle,
  type LifecycleOptions,
  ShutdownStarted,
} from "./lifecycle.ts";
export {
  createReadinessProbe,
  DRAINING,
  NotReadyError,
  type Readiness,
  READINESS_PROBE_SCHEMA,
  type ReadinessProbe,
  type ReadinessProbeOptions,
  STARTING,
} from "./readiness_probe.ts";
export { createDrain, type Drain, type DrainOptions } from "./drain.ts";
export {
  installUncaughtGuard,
  reportUncaughtTo,
  requestIdOfReason,
  type UncaughtCounts,
  uncaughtCounts,
} from "./uncaught_guard.ts";
