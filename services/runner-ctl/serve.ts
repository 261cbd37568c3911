/**
 * runner-ctl's composition root. It has no HTTP surface: from resolved settings it wires the
 * GitHub clients (auth, Actions service), the Incus clients (transport, instances), the
 * controller and the job-proof queue, runs Incus preflight, then starts the listener and the
 * reconcile loop as background tasks until SIGTERM/SIGINT, and drains within
 * `timeouts.shutdown` (the whole shutdown is bounded by twice that). Under systemd
 * (`NOTIFY_SOCKET`) it sends `READY=1` once its loops run, `WATCHDOG=1` while both make progress
 * (`systemd_notify.ts`) and `STOPPING=1` at the shutdown.
 *
 * @module
 */
import { createLogger, type Logger } from "@svc/shared/log";
import { createLifecycle, type Lifecycle, type TasksReport } from "@svc/shared/lifecycle";
import type { EnvLookup } from "@svc/shared/settings";
import { ActionsClient } from "./github/actions.ts";
import { ActionsAuth } from "./github/auth.ts";
import type { HttpDeps } from "./github/http.ts";
import { runListener } from "./github/listener.ts";
import { InstanceClient } from "./incus/instances.ts";
import { ImageSource } from "./incus/image_source.ts";
import { preflight } from "./incus/preflight.ts";
import { defaultSocketPath, IncusError, IncusTransport } from "./incus/transport.ts";
import { Controller } from "./controller/controller.ts";
import { JobProofQueue } from "./proof/job_proofs.ts";
import { loadJobProofSettings } from "./proof/signing_key_file.ts";
import { IDENTITY, userAgent } from "./identity.ts";
import type { Settings } from "./settings.ts";
import { createNotifier, Watchdog, watchdogIntervalMs } from "./systemd_notify.ts";
import {
  type ControllerMetrics,
  measuredFetch,
  meteredController,
  NO_METRICS,
  startMetrics,
} from "./metrics.ts";

/** Options of {@linkcode serve}. */
export interface ServeOptions {
  /**
   * Environment lookup: `INCUS_DIR`, when `incus.socket` is empty; systemd's `NOTIFY_SOCKET` and
   * `WATCHDOG_USEC` (`Type=notify`, `WatchdogSec=`); the OpenTelemetry `OTEL_*` variables of the
   * metrics export (`metrics.ts`).
   */
  env: EnvLookup;
  /** Where the controller's JSON records go. @default JSON lines on stdout, with its identity */
  logger?: Logger;
  /** Owner name of the message session. @default {Deno.hostname()} */
  hostname?: string;
  /** HTTP client for GitHub (tests hand in a fake's). @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Clock in epoch milliseconds. @default Date.now */
  now?: () => number;
  /** Start the shutdown on SIGTERM/SIGINT. @default {true} */
  handleSignals?: boolean;
}

/** How a controller's run ended. */
export interface ControllerReport {
  /** A task failed or was still running when the bound ran out (exit 1). */
  forced: boolean;
  /** How the background tasks (listener, reconcile, job proofs) ended. */
  tasks: TasksReport;
  /** The error of the first task that failed, which started the shutdown. */
  failure?: { error: unknown };
}

/** A running controller. */
export interface RunningController {
  /** Starts the shutdown (as SIGTERM does) and resolves when it is over. */
  shutdown(): Promise<ControllerReport>;
  /** Resolves when the shutdown is over. */
  finished: Promise<ControllerReport>;
}

/**
 * Starts the controller: resolves once preflight has passed and its loops run.
 *
 * @example Usage
 * ```ts ignore
 * import { loadSettings } from "./load_settings.ts";
 * import { serve } from "./serve.ts";
 * const env = (name: string) => Deno.env.get(name);
 * const controller = await serve(await loadSettings({ args: [], env }), { env });
 * const report = await controller.finished;
 * ```
 * @throws {IncusError} when preflight fails (an unreachable socket names the setting to change).
 * @throws {SettingsError} when the job-proof key file cannot be used.
 */
export async function serve(settings: Settings, options: ServeOptions): Promise<RunningController> {
  const values = settings.values;
  const logger = options.logger ?? createLogger({ service: IDENTITY });
  const now = options.now ?? Date.now;
  let failure: { error: unknown } | undefined;
  const lifecycle = createLifecycle({
    logger,
    handleSignals: options.handleSignals ?? true,
    onTaskError: (_name, error) => {
      failure ??= { error };
      lifecycle.shutdown("task failed");
    },
  });
  let transport: IncusTransport | undefined;
  const notifier = createNotifier(options.env, logger);
  let exporter: Awaited<ReturnType<typeof startMetrics>>;
  try {
    exporter = await startMetrics({
      env: options.env,
      logger,
      serviceName: IDENTITY.name,
      serviceVersion: IDENTITY.build.version,
    });
    // The observable instruments read the controller's pool and backoff at each export.
    const built: { controller?: Controller } = {};
    const metrics: ControllerMetrics = exporter
      ? meteredController(exporter.meter, values["github.scale_set"], {
        runners: () =>
          built.controller?.pool.summary() ??
            { creating: 0, booting: 0, idle: 0, busy: 0, done: 0, removing: 0 },
        backoffLevel: () => built.controller?.backoff.failures ?? 0,
      })
      : NO_METRICS;
    if (exporter) logger.info("metrics export enabled", { url: exporter.url });
    const baseFetch = options.fetch ?? fetch;
    const http: HttpDeps = {
      fetch: exporter ? measuredFetch(baseFetch, metrics) : baseFetch,
      userAgent: userAgent(),
      retry: { initialMs: values["retry.initial"], maximumMs: values["retry.maximum"] },
      random: Math.random,
    };
    const auth = new ActionsAuth({
      configUrl: settings.configUrl,
      credentials: settings.credentials,
      http,
    });
    const actions = new ActionsClient(auth, http);
    const proofSettings = await loadJobProofSettings(values); // fails startup when only one is set
    transport = new IncusTransport({
      socket: values["incus.socket"] || defaultSocketPath(options.env),
      project: values["incus.project"],
    });
    const template = await preflight(transport, {
      image: values["incus.image"],
      profiles: values["incus.profiles"],
      type: "virtual-machine",
      signal: lifecycle.signal,
    }).catch((err) => {
      // At start-up an unreachable socket is a setting to change: say which.
      if (!(err instanceof IncusError) || err.status !== 0) throw err;
      const hint = "(change incus.socket / RUNNER_CTL_INCUS_SOCKET, or start Incus)";
      throw new IncusError(0, `${err.message} ${hint}`, { cause: err });
    });
    logger.info("preflight passed", {
      fingerprint: template.fingerprint,
      // An alias is followed (resolved again on incus.image_refresh_interval); a fingerprint pins.
      image_mode: template.follows ? "follows alias" : "pinned",
      profiles: template.profiles,
      incus_version: template.serverVersion,
    });
    const instances = new InstanceClient({
      transport,
      operationTimeoutMs: values["timeouts.incus_operation"],
      concurrency: values["concurrency.incus_operations"],
      logger,
      onOperation: (op, ms, error) => metrics.incusOperation(op, ms, error),
    });
    const image = new ImageSource({
      transport,
      configured: values["incus.image"],
      initial: template,
      type: template.type,
      intervalMs: values["incus.image_refresh_interval"],
      now,
    });
    let proofs: JobProofQueue | undefined;
    // A loop is stalled when it has made no progress for longer than its own bounds allow: a poll
    // ends within max(90 s, message_poll_timeout), a retry waits at most retry.maximum; twice
    // that, plus a reconcile interval.
    const watchdog = notifier && new Watchdog({
      notifier,
      logger,
      now,
      stallMs: values["reconcile_interval"] +
        2 * (Math.max(90_000, values["github.message_poll_timeout"]) + values["retry.maximum"]),
    });
    const controller = new Controller({
      actions,
      instances,
      template,
      image,
      metrics,
      logger,
      scaleSet: values["github.scale_set"],
      owner: values["incus.owner"],
      minRunners: values["capacity.min_runners"],
      maxRunners: values["capacity.max_runners"],
      bootstrapTimeoutMs: values["incus.bootstrap_timeout"],
      diagnosticsDir: values["incus.diagnostics_dir"],
      reconcileIntervalMs: values["reconcile_interval"],
      retry: http.retry,
      jitter: http.random,
      now,
      onJobStarted: (job, runner) => proofs?.offer(job, runner.name),
      onPass: () => watchdog?.progress("reconcile"),
    });
    built.controller = controller;
    if (proofSettings) {
      const queue = new JobProofQueue({
        ...proofSettings,
        maxRunners: values["capacity.max_runners"],
        instances,
        project: values["incus.project"],
        scaleSetName: values["github.scale_set"],
        scaleSetId: () => controller.scaleSetId,
        logger,
        now,
      });
      proofs = queue;
      lifecycle.spawn("job-proofs", (signal) => queue.run(signal));
      logger.info("job proofs enabled", {
        host_id: proofSettings.hostId,
        keyid: proofSettings.key.keyid,
      });
    }
    const shutdownMs = values["timeouts.shutdown"];
    const hard = new AbortController();
    lifecycle.spawn("listener", (signal) =>
      runListener({
        client: actions,
        http,
        handler: controller,
        logger,
        scaleSet: values["github.scale_set"],
        runnerGroup: values["github.runner_group"],
        ownerName: options.hostname ?? Deno.hostname(),
        maxCapacity: () => values["capacity.max_runners"],
        pollTimeoutMs: values["github.message_poll_timeout"],
        closeTimeoutMs: Math.min(10_000, shutdownMs),
        signal,
        onProgress: (step) => {
          watchdog?.progress("listener");
          if (step === "poll") metrics.polled(now());
        },
      }));
    lifecycle.spawn("reconcile", async (signal) => {
      await controller.run(signal);
      const start = now();
      const timer = setTimeout(() => hard.abort(), 2 * shutdownMs - 250);
      try {
        logger.info("draining", { runners: controller.pool.summary() });
        await controller.drain(start + shutdownMs, hard.signal);
      } finally {
        clearTimeout(timer);
      }
    });
    logger.info("controller started", {
      scale_set: values["github.scale_set"],
      max_runners: values["capacity.max_runners"],
    });
    const pingMs = watchdogIntervalMs(options.env);
    if (notifier) {
      await notifier.send("READY=1");
      if (watchdog && pingMs !== undefined) watchdog.start(pingMs);
      logger.info("systemd notified", {
        ready: true,
        ...(pingMs === undefined ? {} : { watchdog_ping_ms: pingMs }),
      });
      void lifecycle.untilShutdown().then(() => {
        watchdog?.stop();
        return notifier.send("STOPPING=1");
      });
    }
    const finished = untilStopped(lifecycle, { logger, shutdownMs, hard }).then((stopped) => ({
      ...stopped,
      ...(failure && { failure }),
    })).finally(async () => {
      await exporter?.shutdown(); // the last export, bounded
      watchdog?.stop();
      notifier?.close();
      transport?.close();
      lifecycle.close();
    });
    return {
      shutdown: () => {
        lifecycle.shutdown();
        return finished;
      },
      finished,
    };
  } catch (err) {
    await exporter?.shutdown();
    notifier?.close();
    transport?.close();
    lifecycle.close();
    throw err;
  }
}

/**
 * Waits for the shutdown, then stops the tasks within twice `timeouts.shutdown`, writing the kit's
 * lifecycle records (the servers' too, so every service reads alike).
 */
async function untilStopped(
  lifecycle: Lifecycle,
  options: { logger: Logger; shutdownMs: number; hard: AbortController },
): Promise<{ forced: boolean; tasks: TasksReport }> {
  const { logger, shutdownMs, hard } = options;
  const cause = await lifecycle.untilShutdown();
  logger.info("shutdown_started", { cause, grace_ms: shutdownMs });
  const report = await lifecycle.stopTasks({ timeoutMs: 2 * shutdownMs });
  hard.abort();
  const forced = report.failed.length > 0 || report.abandoned.length > 0;
  logger.info(forced ? "shutdown_forced" : "shutdown_completed", { ...report });
  return { forced, tasks: report };
}
