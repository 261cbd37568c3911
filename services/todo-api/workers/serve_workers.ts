/**
 * `serve --workers N` (N > 1, Postgres only): N isolates serve the API on one port with
 * `SO_REUSEPORT`, so the kernel spreads connections over them (Linux), each with its own pool of
 * `--db-pool-size` connections: worker 1 is the main isolate itself, workers 2…N are worker
 * isolates (`serve_worker.ts`). The main isolate
 * - checks the API address first (a port in use fails as with one isolate; port 0 is resolved
 *   once, so every worker listens on the same port);
 * - serves the API as worker 1 and starts the other workers once its datastore is open, so the
 *   API answers after one isolate's start (a worker isolate costs its own runtime start and loads
 *   the whole API again) and a datastore that cannot be opened fails the start before the
 *   other isolates exist;
 * - serves `/metrics` on `--metrics-addr`: on each scrape it asks every worker for a snapshot of
 *   its registry and adds them up, plus `http_requests_by_worker_total` (the same counts with a
 *   `worker` label, 1…N) to show how requests spread;
 * - owns SIGTERM/SIGINT: it tells every worker to shut down (each keeps serving for
 *   `--shutdown-delay` with `/readyz` draining, then drains its requests and closes its pool),
 *   waits for all of them, then closes the metrics listener;
 * - fails the start as a whole when any worker cannot start (its error, as one line), ending
 *   every worker first; that includes a worker that listened but then could not open its
 *   datastore (each opens it behind its listener, `serveIsolate` of `serve.ts`).
 * @module
 */
import type { Logger } from "@svc/shared/log";
import { createLifecycle } from "@svc/shared/lifecycle";
import { createKeyChanges } from "../auth/key_changes.ts";
import { createRouter, withDefaultStack } from "@svc/shared/http";
import { Counter, createMetrics, mergeSnapshots, type MetricSnapshot } from "@svc/shared/metrics";
import {
  probeAddr,
  type RunningServer,
  type ShutdownReport,
  startServer,
} from "@svc/shared/server";
import { SettingsError } from "@svc/shared/settings";
import { SETTINGS, type Settings } from "../settings.ts";
import type { FromWorker, ToWorker } from "./worker_protocol.ts";
import type { IsolateOptions, IsolateServer } from "../serve.ts";

/** Options of {@linkcode serveOnWorkers}. */
export interface ServeOnWorkersOptions {
  /** Gets the main isolate's lines (workers log on their own, with a `worker` field). */
  logger: Logger;
  /** How many worker isolates. */
  workers: number;
  /** Starts the shutdown on SIGTERM and SIGINT. @default {true} */
  handleSignals?: boolean;
  /** Serves the API in this isolate (`serve.ts`'s), as worker 1. */
  serveIsolate(settings: Settings, options: IsolateOptions): Promise<IsolateServer>;
}

const SCRAPE_TIMEOUT_MS = 2_000;
const STOP_SLACK_MS = 15_000;

interface Slot {
  id: number;
  /** Resolves with the URL once listening; rejects with the worker's start-up error. */
  ready: Promise<string>;
  /** Resolves when the worker has shut down (or died). */
  stopped: Promise<ShutdownReport>;
  /** The latest snapshot of its metrics (its final one once stopped). */
  last: MetricSnapshot[];
  snapshot(): Promise<MetricSnapshot[]>;
  send(message: ToWorker): void;
  /** Ends a worker isolate at once (nothing for the main isolate's own server). */
  terminate(): void;
}

/** The report of a worker that died or had to be ended: nothing of its own to tell. */
function forced(): ShutdownReport {
  return { forced: true, tasks: { stopped: [], failed: [], abandoned: [] } };
}

function startupError(error: { name: string; message: string; key?: string }): Error {
  if (error.key !== undefined) return new SettingsError(error.key, error.message);
  const err = new Error(error.message);
  err.name = error.name;
  return err;
}

function spawn(
  id: number,
  settings: Settings,
  options: {
    logger: Logger;
    onCrash(): void;
    /** A worker that listened could not open its datastore: the start fails after all. */
    onFailure(err: unknown): void;
    keyChanges: SharedArrayBuffer;
  },
): Slot {
  const { logger } = options;
  const worker = new Worker(new URL("./serve_worker.ts", import.meta.url).href, {
    type: "module",
    name: `todo-api-worker-${id}`,
  });
  const ready = Promise.withResolvers<string>();
  const stopped = Promise.withResolvers<ShutdownReport>();
  const scrapes = new Map<number, (snapshot: MetricSnapshot[]) => void>();
  let next = 0;
  let listening = false;
  const slot: Slot = {
    id,
    terminate: () => worker.terminate(),
    ready: ready.promise,
    stopped: stopped.promise,
    last: [],
    send: (message) => worker.postMessage(message),
    snapshot() {
      const scrape = Promise.withResolvers<MetricSnapshot[]>();
      const key = next++;
      scrapes.set(key, scrape.resolve);
      worker.postMessage({ type: "metrics", id: key } satisfies ToWorker);
      const timer = setTimeout(() => scrape.resolve(slot.last), SCRAPE_TIMEOUT_MS);
      return scrape.promise.finally(() => {
        clearTimeout(timer);
        scrapes.delete(key);
      });
    },
  };
  worker.onmessage = ({ data }: MessageEvent<FromWorker>) => {
    if (data.type === "listening") {
      listening = true;
      ready.resolve(data.url);
    } else if (data.type === "failed" && !listening) ready.reject(startupError(data.error));
    else if (data.type === "failed") {
      stopped.resolve(forced());
      options.onFailure(startupError(data.error));
    } else if (data.type === "metrics") {
      slot.last = data.snapshot;
      scrapes.get(data.id)?.(data.snapshot);
    } else if (data.type === "stopped") {
      slot.last = data.snapshot;
      stopped.resolve(data.report);
    }
  };
  worker.onerror = (event) => {
    event.preventDefault();
    const message = String(event.message).split("\n")[0]; // one line; the stack is Deno's
    logger.error("worker failed", { worker: id, error: message });
    const err = new Error(`Cannot serve: worker ${id} failed: ${message}`);
    ready.reject(err);
    stopped.resolve(forced());
    options.onCrash();
  };
  ready.promise.catch(() => {}); // observed by serveOnWorkers
  worker.postMessage(
    { type: "start", worker: id, settings, keyChanges: options.keyChanges } satisfies ToWorker,
  );
  return slot;
}

/**
 * Worker 1: the API served by the main isolate itself (its own lifecycle, metrics registry and
 * pool, its lines with `"worker": 1`), so the first answer waits for no isolate start.
 */
function selfSlot(
  id: number,
  settings: Settings,
  options: {
    logger: Logger;
    onFailure(err: unknown): void;
    keyChanges: SharedArrayBuffer;
    serveIsolate: ServeOnWorkersOptions["serveIsolate"];
  },
): Slot & { opened: Promise<void> } {
  const logger = options.logger.child({ worker: id });
  // No signals (the main lifecycle owns them) and no logger: the main lifecycle already reports
  // this isolate's uncaught errors.
  const lifecycle = createLifecycle({ handleSignals: false });
  const metrics = createMetrics({ service: "todo-api" });
  const stopped = Promise.withResolvers<ShutdownReport>();
  const opened = Promise.withResolvers<void>();
  opened.promise.catch(() => {}); // a failure is reported through onFailure
  const ready = options.serveIsolate(settings, {
    logger,
    lifecycle,
    metrics,
    metricsListener: false,
    reusePort: true,
    keyChanges: createKeyChanges(options.keyChanges),
  }).then((server) => {
    server.opened.then(opened.resolve, opened.reject);
    server.finished.then(stopped.resolve, (err) => {
      stopped.resolve(forced());
      options.onFailure(err);
    });
    return server.urls.api;
  });
  ready.catch(() => {}); // observed by serveOnWorkers
  const slot: Slot & { opened: Promise<void> } = {
    id,
    ready,
    opened: opened.promise,
    stopped: stopped.promise,
    last: [],
    snapshot: () => Promise.resolve(slot.last = metrics.registry.snapshot()),
    send(message) {
      if (message.type === "shutdown") lifecycle.shutdown(message.cause);
    },
    terminate() {},
  };
  return slot;
}

/** A worker's shutdown report, or a forced one when it has not stopped within `ms`. */
async function stoppedWithin(slot: Slot, ms: number, logger: Logger): Promise<ShutdownReport> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((r) => timer = setTimeout(() => r(undefined), ms));
  const report = await Promise.race([slot.stopped, late]);
  clearTimeout(timer);
  if (report) return report;
  logger.error("worker did not stop in time: ended", { worker: slot.id, waitedMs: ms });
  return forced();
}

/** The workers' metrics added up, plus the per-worker request counts. */
async function mergedMetrics(slots: Slot[]): Promise<string> {
  const snapshots = await Promise.all(slots.map((s) => s.snapshot()));
  const registry = mergeSnapshots(snapshots);
  registry.setDefaultLabels({ service: "todo-api" });
  const byWorker = new Counter({
    name: "http_requests_by_worker_total",
    help: "HTTP requests answered, by worker isolate (1…N), method, route and status",
    labelNames: ["worker", "method", "route", "status"] as const,
    registers: [registry],
  });
  for (const [i, snapshot] of snapshots.entries()) {
    const requests = snapshot.find((m) => m.name === "http_requests_total");
    for (const s of requests?.series ?? []) {
      byWorker.inc({ ...s.labels, worker: String(slots[i].id) }, s.value);
    }
  }
  return await registry.metrics();
}

/** Serves as worker 1, starts workers 2…N and the metrics listener; resolves once all listen. */
export async function serveOnWorkers(
  settings: Settings,
  options: ServeOnWorkersOptions,
): Promise<RunningServer> {
  const { logger, workers } = options;
  const lifecycle = createLifecycle({ logger, handleSignals: options.handleSignals ?? true });
  const slots: Slot[] = [];
  const scrapeLifecycle = createLifecycle({ handleSignals: false });
  // A worker that listened but could not open its datastore ends the start with its error.
  const failed = Promise.withResolvers<never>();
  failed.promise.catch(() => {}); // observed through `finished`
  let api: string;
  let metricsServer: RunningServer;
  try {
    const addr = probeAddr({ name: "api", addr: settings.addr, setting: SETTINGS.names("addr") });
    // One key-change generation for all workers: a key revoked through one is refused by all.
    const keyChanges = new SharedArrayBuffer(4);
    const target = { ...settings, addr };
    const onFailure = (err: unknown) => {
      lifecycle.shutdown("worker failed");
      failed.reject(err);
    };
    // Worker 1 is this isolate, so the API answers after one isolate's start. The others start
    // once it has opened its datastore: they do not compete with its first answers, and a
    // datastore that cannot be opened fails the start before N isolates are started for it.
    const self = selfSlot(1, target, {
      logger,
      keyChanges,
      onFailure,
      serveIsolate: options.serveIsolate,
    });
    slots.push(self);
    await self.ready;
    await self.opened;
    for (let id = 2; id <= workers; id++) {
      slots.push(spawn(id, target, {
        logger,
        keyChanges,
        onCrash: () => lifecycle.shutdown("worker failed"),
        onFailure,
      }));
    }
    [api] = await Promise.all(slots.map((s) => s.ready));
    const scrape = withDefaultStack(
      createRouter([{
        method: ["GET", "HEAD"],
        pattern: "/metrics",
        handler: async () =>
          new Response(await mergedMetrics(slots), {
            headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" },
          }),
      }]),
      { logger },
    );
    metricsServer = await startServer(
      [{
        name: "metrics",
        addr: settings.metricsAddr,
        handler: scrape,
        setting: SETTINGS.names("metrics_addr"),
      }],
      { logger, lifecycle: scrapeLifecycle, shutdownGrace: settings.shutdownGraceMs },
    );
  } catch (err) {
    for (const slot of slots) slot.terminate();
    lifecycle.close();
    scrapeLifecycle.close();
    throw err;
  }
  logger.info("serving on workers", { workers, url: api, dbPoolSizeEach: settings.dbPoolSize });

  async function stop(cause: string): Promise<ShutdownReport> {
    for (const slot of slots) slot.send({ type: "shutdown", cause });
    // Each worker bounds its own stop (delay, grace, pool close); this bounds a stuck one.
    const bound = settings.shutdownDelayMs + settings.shutdownGraceMs + STOP_SLACK_MS;
    const reports = await Promise.all(slots.map((s) => stoppedWithin(s, bound, logger)));
    for (const slot of slots) slot.terminate();
    await metricsServer.shutdown();
    lifecycle.close();
    logger.info("workers stopped", { workers, forced: reports.some((r) => r.forced) });
    return {
      forced: reports.some((r) => r.forced),
      tasks: {
        stopped: reports.flatMap((r) => r.tasks.stopped),
        failed: reports.flatMap((r) => r.tasks.failed),
        abandoned: reports.flatMap((r) => r.tasks.abandoned),
      },
    };
  }
  // A failure rejects at once (`main` exits with it); the workers stop behind it.
  const finished = Promise.race([lifecycle.untilShutdown().then(stop), failed.promise]);
  finished.catch(() => {});
  return {
    urls: { api, metrics: metricsServer.urls.metrics },
    signal: lifecycle.signal,
    shutdown() {
      lifecycle.shutdown();
      return finished;
    },
    finished,
  };
}
