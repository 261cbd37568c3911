/**
 * Messages between `serve`'s main isolate (`serve_workers.ts`) and its worker isolates
 * (`serve_worker.ts`). Everything crosses `postMessage`, so it is plain data.
 * @module
 */
import type { MetricSnapshot } from "@svc/shared/metrics";
import type { ShutdownReport } from "@svc/shared/server";
import type { Settings } from "../settings.ts";

/** What the main isolate sends. */
export type ToWorker =
  /** Serve the API on `settings.addr` with `SO_REUSEPORT`; answered by `listening` or `failed`. */
  | {
    type: "start";
    worker: number;
    settings: Settings;
    /** The process-wide key-change generation (shared, not copied). */
    keyChanges: SharedArrayBuffer;
  }
  /** Answered by `metrics` with the same `id`. */
  | { type: "metrics"; id: number }
  /** Start the shutdown (delay, drain, pool closed); answered by `stopped`. */
  | { type: "shutdown"; cause: string };

/** What a worker answers. */
export type FromWorker =
  | { type: "listening"; url: string }
  /** The start failed: before `listening`, or after it when the datastore cannot be opened. */
  | { type: "failed"; error: { name: string; message: string; key?: string } }
  | { type: "metrics"; id: number; snapshot: MetricSnapshot[] }
  | { type: "stopped"; report: ShutdownReport; snapshot: MetricSnapshot[] };
