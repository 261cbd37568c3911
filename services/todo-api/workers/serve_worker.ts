/**
 * Entry of one `serve` worker isolate (a Deno `Worker`, started by `serve_workers.ts`): serves the
 * API on the shared port (`SO_REUSEPORT`) with its own database pool and metrics registry, answers
 * the main isolate's metrics requests with a snapshot of that registry, and shuts down when told
 * (the main isolate owns the signals). `deno compile` embeds it through `--include`
 * (`deploy/services.ts`).
 * @module
 */
import { IDENTITY } from "../identity.ts";
import { createLogger, flushLogs } from "@svc/shared/log";
import { createLifecycle, type Lifecycle } from "@svc/shared/lifecycle";
import { createMetrics, type Metrics } from "@svc/shared/metrics";
import { SettingsError } from "@svc/shared/settings";
import { createKeyChanges } from "../auth/key_changes.ts";
import { serveIsolate } from "../serve.ts";
import { thrownMessage } from "../thrown.ts";
import type { FromWorker, ToWorker } from "./worker_protocol.ts";

const scope = self as unknown as {
  onmessage: (event: MessageEvent<ToWorker>) => void;
  postMessage(message: FromWorker): void;
};

let metrics: Metrics | undefined;
let lifecycle: Lifecycle | undefined;

async function start(worker: number, message: ToWorker & { type: "start" }): Promise<void> {
  const logger = createLogger({
    level: message.settings.logLevel,
    service: IDENTITY,
    fields: { worker },
  });
  lifecycle = createLifecycle({ logger, handleSignals: false });
  metrics = createMetrics({ service: "todo-api" });
  try {
    const server = await serveIsolate(message.settings, {
      logger,
      lifecycle,
      metrics,
      metricsListener: false,
      reusePort: true,
      keyChanges: createKeyChanges(message.keyChanges),
    });
    server.finished.then((report) => {
      flushLogs(); // the main isolate terminates this one once it hears "stopped"
      scope.postMessage({ type: "stopped", report, snapshot: metrics!.registry.snapshot() });
    }, (err) => {
      // The datastore could not be opened after listening: the start fails as a whole.
      flushLogs();
      scope.postMessage({ type: "failed", error: errorOf(err) });
    });
    scope.postMessage({ type: "listening", url: server.urls.api });
  } catch (err) {
    flushLogs();
    scope.postMessage({ type: "failed", error: errorOf(err) });
  }
}

function errorOf(err: unknown): { name: string; message: string; key?: string } {
  const e = err instanceof Error ? err : new Error(thrownMessage(err));
  const key = err instanceof SettingsError ? err.key : undefined;
  return { name: e.name, message: e.message, key };
}

scope.onmessage = ({ data }) => {
  if (data.type === "start") void start(data.worker, data);
  else if (data.type === "metrics") {
    scope.postMessage({
      type: "metrics",
      id: data.id,
      snapshot: metrics?.registry.snapshot() ?? [],
    });
  } else if (data.type === "shutdown") lifecycle?.shutdown(data.cause);
};
