/**
 * `serve`: the API in this isolate (`--workers 1`, and always on embedded PGlite), or in N worker
 * isolates sharing the API port (`serve_workers.ts`). SIGTERM/SIGINT start a graceful shutdown
 * either way.
 * @module
 */
import type { Logger } from "@svc/shared/log";
import type { RunningServer } from "@svc/shared/server";
import { createLifecycle } from "@svc/shared/lifecycle";
import { createMetrics } from "@svc/shared/metrics";
import { type Config, workerCount } from "../config.ts";

/** Options of {@linkcode serve}. */
export interface ServeOptions {
  /** Gets the start-up, access and shutdown lines. */
  logger: Logger;
  /** Starts the shutdown on SIGTERM and SIGINT. @default {true} */
  handleSignals?: boolean;
  /** CPU cores, for `--workers 0`. @default {navigator.hardwareConcurrency} */
  cores?: number;
}

/**
 * Starts the service; resolves once it listens (the datastore opens behind the listener, see
 * `serve_api.ts`). `finished` settles after shutdown, or rejects when the start fails after all.
 * @throws {SettingsError} for more than one worker on PGlite, or an address that cannot be used.
 */
export async function serve(config: Config, options: ServeOptions): Promise<RunningServer> {
  const { logger } = options;
  const workers = workerCount(config, options.cores ?? navigator.hardwareConcurrency);
  // Each form loads only its own modules: with workers, the API's are loaded by the workers alone.
  if (workers > 1) {
    const { serveOnWorkers } = await import("./serve_workers.ts");
    return await serveOnWorkers(config, { ...options, workers });
  }
  // SIGTERM during startup is kept: the server then stops as soon as it listens.
  const lifecycle = createLifecycle({ logger, handleSignals: options.handleSignals ?? true });
  const metrics = createMetrics({ service: "todo-api" });
  const { serveApi } = await import("./serve_api.ts");
  return await serveApi(config, { logger, lifecycle, metrics, metricsListener: true });
}
