/**
 * Starting and removing one runner. Start: register a JIT runner, create its instance from the
 * pinned template with the owner tags, inject the JIT config as a `user.*` key the guest reads,
 * start it. Remove: unregister (a busy runner is left alone unless forced), stop, capture the
 * serial console when `incus.diagnostics_dir` is set, delete.
 *
 * @module
 */
import type { Logger } from "@svc/shared/log";
import type { ActionsClient } from "../github/actions.ts";
import { ActionsError } from "../github/errors.ts";
import { writeCapture } from "../incus/console_capture.ts";
import { type InstanceClient, TAG } from "../incus/instances.ts";
import type { PinnedTemplate } from "../incus/preflight.ts";
import type { RunnerPool, RunnerRecord } from "./pool.ts";

/** What the runner operations need. */
export interface RunnerOpsDeps {
  actions: ActionsClient;
  instances: InstanceClient;
  template: PinnedTemplate;
  /**
   * The fingerprint new runners are created from (it follows an alias; see `ImageSource`).
   * @default {template.fingerprint}
   */
  fingerprint?: () => string;
  pool: RunnerPool;
  logger: Logger;
  owner: string;
  scaleSet: string;
  diagnosticsDir: string;
  now: () => number;
}

/** Registers and starts the runner of record `rec`; throws after cleaning up on failure. */
export async function startRunner(
  d: RunnerOpsDeps,
  rec: RunnerRecord,
  scaleSetId: number,
  signal?: AbortSignal,
): Promise<void> {
  const jit = await d.actions.generateJitConfig(scaleSetId, rec.name, signal);
  rec.runnerId = jit.runner.id;
  const fingerprint = d.fingerprint?.() ?? d.template.fingerprint;
  rec.image = fingerprint;
  await d.instances.create({
    name: rec.name,
    type: d.template.type,
    fingerprint,
    config: {
      ...d.template.config,
      [TAG.owner]: d.owner,
      [TAG.scaleSet]: d.scaleSet,
      [TAG.runnerId]: String(jit.runner.id),
      [TAG.image]: fingerprint,
    },
    devices: d.template.devices,
  }, signal);
  d.logger.info("runner instance created", {
    runner: rec.name,
    runner_id: rec.runnerId,
    image: fingerprint,
  });
  await d.instances.patchConfig(rec.name, { [TAG.jitConfig]: jit.encodedJITConfig }, signal);
  await d.instances.setState(rec.name, "start", signal);
  d.pool.set(rec.name, "booting", { startedAt: d.now() });
  d.logger.info("runner started", { runner: rec.name });
}

/**
 * Removes a runner. With `onlyIfIdle`, a runner GitHub says is running a job is kept (marked
 * busy) and "kept" is returned. When its registration cannot be removed, nothing else is touched
 * and the error is thrown, so the caller retries later.
 */
export async function removeRunner(
  d: RunnerOpsDeps,
  rec: RunnerRecord,
  o: { reason: string; onlyIfIdle?: boolean; signal?: AbortSignal },
): Promise<"removed" | "kept"> {
  const log = d.logger.child({ runner: rec.name });
  if (rec.runnerId !== undefined) {
    try {
      await d.actions.removeRunner(rec.runnerId, o.signal);
    } catch (err) {
      if (err instanceof ActionsError && err.code === "job_still_running" && o.onlyIfIdle) {
        d.pool.set(rec.name, "busy");
        log.info("runner kept: it is running a job");
        return "kept";
      }
      // Deleting the VM now would strand the registration (its id lives only in the VM's tags):
      // keep both, and let a later pass retry (JobStillRunning means wait; errors may pass).
      log.warn("runner registration not removed", { error: String(err) });
      throw err;
    }
  }
  const inst = await d.instances.get(rec.name, o.signal);
  if (inst) {
    if (inst.statusCode !== 102) await d.instances.setState(rec.name, "stop", o.signal);
    if (d.diagnosticsDir) {
      try {
        const log2 = await d.instances.consoleLog(rec.name, o.signal);
        const path = await writeCapture(d.diagnosticsDir, rec.name, log2, d.now);
        rec.capture = path;
        log.info("console captured", { path, bytes: log2.length });
      } catch (err) {
        log.warn("console not captured", { error: String(err) });
      }
    }
    await d.instances.delete(rec.name, o.signal);
  }
  d.pool.runners.delete(rec.name);
  log.info("runner removed", { reason: o.reason });
  return "removed";
}
