/**
 * The controller run mode: build the clients from the configuration, run Incus preflight, then
 * run the listener and the reconcile loop as background tasks until SIGTERM/SIGINT, and drain
 * within `timeouts.shutdown` (the whole shutdown is bounded by twice that).
 *
 * @module
 */
import type { Logger } from "@svc/shared/log";
import type { Lifecycle } from "@svc/shared/lifecycle";
import { ActionsClient } from "./github/actions.ts";
import { ActionsAuth } from "./github/auth.ts";
import type { HttpDeps } from "./github/http.ts";
import { runListener } from "./github/listener.ts";
import { InstanceClient } from "./incus/instances.ts";
import { preflight } from "./incus/preflight.ts";
import { defaultSocketPath, IncusError, IncusTransport } from "./incus/transport.ts";
import { Controller } from "./controller/controller.ts";
import { JobProofQueue } from "./proof/job_proofs.ts";
import { loadJobProofSettings } from "./proof/signing_key_file.ts";
import type { RunnerCtlConfig } from "./load_settings.ts";
import { userAgent } from "./identity.ts";

/** What the run mode needs besides the configuration. */
export interface RunDeps {
  /** The loaded configuration (see `loadConfig`). */
  config: RunnerCtlConfig;
  /** Environment lookup, for the credential chain's variables. */
  env: (name: string) => string | undefined;
  /** Where the controller's JSON records go. */
  logger: Logger;
  /** Signals, shutdown and background tasks of the process. */
  lifecycle: Lifecycle;
  /** Owner name of the message session. */
  hostname: string;
  /** HTTP client for GitHub (tests hand in a fake's). @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Clock in epoch milliseconds. @default Date.now */
  now?: () => number;
}

/** Runs the controller until shutdown; resolves the exit code (0 clean, 1 failure). */
export async function runController(d: RunDeps): Promise<number> {
  const v = d.config.values;
  const log = d.logger;
  const now = d.now ?? Date.now;
  const http: HttpDeps = {
    fetch: d.fetch ?? fetch,
    userAgent: userAgent(),
    retry: { initialMs: v["retry.initial"], maximumMs: v["retry.maximum"] },
    random: Math.random,
  };
  const auth = new ActionsAuth({
    configUrl: d.config.configUrl,
    credentials: d.config.credentials,
    http,
  });
  const actions = new ActionsClient(auth, http);
  const proofSettings = await loadJobProofSettings(v); // fails startup when only one is set
  const transport = new IncusTransport({
    socket: v["incus.socket"] || defaultSocketPath(d.env),
    project: v["incus.project"],
  });
  try {
    const template = await preflight(transport, {
      image: v["incus.image"],
      profiles: v["incus.profiles"],
      type: "virtual-machine",
      signal: d.lifecycle.signal,
    }).catch((err) => {
      // At start-up an unreachable socket is a setting to change: say which.
      if (!(err instanceof IncusError) || err.status !== 0) throw err;
      const hint = "(change incus.socket / RUNNER_CTL_INCUS_SOCKET, or start Incus)";
      throw new IncusError(0, `${err.message} ${hint}`, { cause: err });
    });
    log.info("preflight passed", {
      fingerprint: template.fingerprint,
      profiles: template.profiles,
      incus_version: template.serverVersion,
    });
    const instances = new InstanceClient({
      transport,
      operationTimeoutMs: v["timeouts.incus_operation"],
      concurrency: v["concurrency.incus_operations"],
      logger: log,
    });
    let proofs: JobProofQueue | undefined;
    const ctl = new Controller({
      actions,
      instances,
      template,
      logger: log,
      scaleSet: v["github.scale_set"],
      owner: v["incus.owner"],
      minRunners: v["capacity.min_runners"],
      maxRunners: v["capacity.max_runners"],
      bootstrapTimeoutMs: v["incus.bootstrap_timeout"],
      diagnosticsDir: v["incus.diagnostics_dir"],
      reconcileIntervalMs: v["reconcile_interval"],
      retry: http.retry,
      jitter: http.random,
      now,
      onJobStarted: (job, rec) => proofs?.offer(job, rec.name),
    });
    if (proofSettings) {
      proofs = new JobProofQueue({
        ...proofSettings,
        maxRunners: v["capacity.max_runners"],
        instances,
        project: v["incus.project"],
        scaleSetName: v["github.scale_set"],
        scaleSetId: () => ctl.scaleSetId,
        logger: log,
        now,
      });
      d.lifecycle.spawn("job-proofs", (signal) => proofs!.run(signal));
      log.info("job proofs enabled", {
        host_id: proofSettings.hostId,
        keyid: proofSettings.key.keyid,
      });
    }
    const shutdownMs = v["timeouts.shutdown"];
    const hard = new AbortController();
    d.lifecycle.spawn("listener", (signal) =>
      runListener({
        client: actions,
        http,
        handler: ctl,
        logger: log,
        scaleSet: v["github.scale_set"],
        runnerGroup: v["github.runner_group"],
        ownerName: d.hostname,
        maxCapacity: () => v["capacity.max_runners"],
        pollTimeoutMs: v["github.message_poll_timeout"],
        closeTimeoutMs: Math.min(10_000, v["timeouts.shutdown"]),
        signal,
      }));
    d.lifecycle.spawn("reconcile", async (signal) => {
      await ctl.run(signal);
      const start = now();
      const timer = setTimeout(() => hard.abort(), 2 * shutdownMs - 250);
      try {
        log.info("draining", { runners: ctl.pool.summary() });
        await ctl.drain(start + shutdownMs, hard.signal);
      } finally {
        clearTimeout(timer);
      }
    });
    log.info("controller started", {
      scale_set: v["github.scale_set"],
      max_runners: v["capacity.max_runners"],
    });
    const cause = await d.lifecycle.untilShutdown();
    // The kit's lifecycle record names (the servers' too), so every service reads alike.
    log.info("shutdown_started", { cause, grace_ms: shutdownMs });
    const report = await d.lifecycle.stopTasks({ timeoutMs: 2 * shutdownMs });
    hard.abort();
    const forced = report.failed.length > 0 || report.abandoned.length > 0;
    log.info(forced ? "shutdown_forced" : "shutdown_completed", { ...report });
    return report.failed.length || report.abandoned.length ? 1 : 0;
  } finally {
    transport.close();
  }
}
