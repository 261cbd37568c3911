/**
 * A fake GitHub + Actions service on 127.0.0.1 over HTTPS (self-signed; clients trust `caCert`),
 * playing every role the scale-set protocol needs: the REST API of a GitHub Enterprise Server
 * (`/api/v3`), the Actions service (`/tenant/1/`) and the message queue (`/queue/<session>`). It
 * follows the real protocol (as actions/scaleset speaks it; docs/runner-ctl.md#github), including
 * its errors, and has fault switches for every failure real controllers meet.
 *
 * @module
 */
import { selfSignedCertificate } from "../../../services/mock-oidc/config/self_signed_cert.ts";
import { json, restError } from "./errors.ts";
import { type FakeJob, type FakeRunner, jobMessage } from "./jobs.ts";
import { handleActions } from "./actions_api.ts";
import { handleQueue } from "./queue_api.ts";
import { handleRest } from "./rest_api.ts";
import { World } from "./world.ts";

export type { SeenRequest } from "./world.ts";

/** Options of {@linkcode startFakeGithub}. */
export interface FakeGithubOptions {
  /** `org` or `org/repo`: the config URL path the fake serves. @default {"org"} */
  target?: string;
  /** Personal access tokens accepted. */
  pats?: string[];
  /** GitHub App accepted: client id, installation id and the PEM public key verifying its JWTs. */
  app?: { clientId: string; installationId: number | bigint; publicKeyPem: string };
  /** Runner groups besides Default (id 1). */
  groups?: string[];
  /** How long GetMessage holds before 202. @default {50000} */
  longPollMs?: number;
  /** Lifetime of admin tokens. @default {3600000} */
  adminTokenTtlMs?: number;
  /** Lifetime of message-queue tokens. @default {3600000} */
  queueTokenTtlMs?: number;
  /** Send JobAvailable (GHES does; github.com may not). @default {true} */
  sendJobAvailable?: boolean;
  /** A started job completes by itself after this long; 0 = only completeJob(). @default {0} */
  jobDurationMs?: number;
  /** Called when a runner's job completed (the guest then powers off). */
  onRunnerDone?: (runnerName: string) => void;
  /** TLS pair; generated when absent. */
  tls?: { cert: string; key: string };
}

/** Starts the fake. */
export async function startFakeGithub(options: FakeGithubOptions = {}) {
  const tls = options.tls ?? await selfSignedCertificate();
  const w = new World(options);

  async function handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const path = url.pathname;
    w.seen.push({ method: req.method, path, at: Date.now() });
    const injected = w.faults.take(path);
    if (injected) return injected;
    if (path.startsWith("/api/v3/")) {
      return await handleRest(w, req, path) ?? restError(404, "Not Found");
    }
    const m = /^\/queue\/([\w-]+)(?:\/(\d+))?$/.exec(path);
    if (m) return handleQueue(w, req, m[1], m[2] === undefined ? undefined : Number(m[2]));
    return handleActions(w, req, url);
  }

  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: tls.cert, key: tls.key, onListen() {} },
    (req) => handle(req).catch((err) => json({ message: String(err) }, 500)),
  );
  const origin = `https://127.0.0.1:${server.addr.port}`;
  w.origin = origin;

  const api = {
    origin,
    caCert: tls.cert,
    /** The config URL a controller uses. */
    configUrl: `${origin}/${w.target}`,
    faults: w.faults,
    seen: w.seen,
    scaleSets: w.scaleSets,
    sessions: w.sessions,
    runners: w.runners,
    jobs: w.jobs,
    messages: w.messages,
    /** Queues a job for the first (or given) scale set; JobAvailable is posted when enabled. */
    queueJob(scaleSetId = w.anySet()): FakeJob {
      const n = w.nextId.job++;
      const job: FakeJob = {
        runnerRequestId: n,
        jobId: `job-${n}`,
        state: "available",
        queueTime: new Date().toISOString(),
      };
      w.jobs.set(n, job);
      if (scaleSetId !== undefined && (w.options.sendJobAvailable ?? true)) {
        w.post(scaleSetId, [
          jobMessage("JobAvailable", job, { acquireJobUrl: `${w.origin}/acquire` }),
        ]);
      } else if (scaleSetId !== undefined) {
        job.state = "assigned";
        w.post(scaleSetId, [jobMessage("JobAssigned", job)]);
        w.dispatch();
      }
      return job;
    },
    /** The guest of a runner started its runner process with `jit`; returns the runner. */
    runnerConnect(jit: string): FakeRunner | undefined {
      const r = [...w.runners.values()].find((x) => x.jit === jit);
      if (!r) return undefined;
      r.online = true;
      w.dispatch();
      return r;
    },
    /** Completes a running job: JobCompleted, then the ephemeral runner unregisters. */
    completeJob(runnerRequestId: number, result = "succeeded") {
      w.completeJob(runnerRequestId, result);
    },
    /** The workflow run is cancelled before a runner took the job: JobCompleted (canceled). */
    cancelJob(runnerRequestId: number) {
      const job = w.jobs.get(runnerRequestId);
      if (!job || (job.state !== "assigned" && job.state !== "available")) return;
      job.state = "completed";
      job.result = "canceled";
      const set = w.anySet();
      if (set !== undefined) {
        w.post(set, [jobMessage("JobCompleted", job, { result: "canceled" })], true);
      }
    },
    /** The service deletes the scale set (inactivity, broker incident). */
    deleteScaleSet(id = w.anySet()) {
      if (id !== undefined) w.deleteScaleSet(id);
    },
    /**
     * Every queue token expires: the next queue call answers 401 until the session is refreshed.
     */
    expireQueueTokens() {
      for (const s of w.sessions.values()) {
        s.token = w.queueToken();
      }
    },
    /** The broker evicts every session: queue calls 401, refresh 404. */
    evictSessions() {
      w.sessions.clear();
      w.wakeAll();
    },
    /** Every admin token stops working (the client must run the auth chain again). */
    expireAdminTokens() {
      w.adminTokens.clear();
    },
    /** The next poll delivers the last acknowledged message again (a redelivery). */
    redeliverLast() {
      w.redeliver = [...w.messages].reverse().find((x) => x.acked);
    },
    /** Whether a redelivery is still waiting for a poll. */
    redeliveryPending: () => w.redeliver !== undefined,
    /** Adds a scale set as if created earlier by someone else. */
    addScaleSet(
      set: { name: string; runnerGroupId?: number; labels?: string[]; disableUpdate?: boolean },
    ) {
      const s = {
        id: w.nextId.set++,
        name: set.name,
        runnerGroupId: set.runnerGroupId ?? 1,
        labels: (set.labels ?? [set.name]).map((name) => ({ name, type: "System" })),
        ...(set.disableUpdate === undefined
          ? {}
          : { RunnerSetting: { disableUpdate: set.disableUpdate } }),
      };
      w.scaleSets.set(s.id, s);
      return s;
    },
    /** Current statistics of a scale set. */
    statistics: (id = w.anySet() ?? 0) => w.stats(id),
    /** Requests w.seen matching `pattern`. */
    count: (method: string, pattern: RegExp) =>
      w.seen.filter((r) => r.method === method && pattern.test(r.path)).length,
    async close() {
      w.wakeAll();
      await server.shutdown();
    },
  };
  return api;
}
