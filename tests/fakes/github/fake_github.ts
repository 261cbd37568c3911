/**
 * A fake GitHub + Actions service on 127.0.0.1 over HTTPS (self-signed; clients trust `caCert`),
 * playing every role the scale-set protocol needs: the REST API of a GitHub Enterprise Server
 * (`/api/v3`), the Actions service (`/tenant/1/`) and the message queue (`/queue/<session>`).
 * It follows the real protocol (see reference/runner-ctl-protocols.md §1 and §5.1), including its
 * errors, and has fault switches for every failure real controllers meet.
 *
 * @module
 */
import { verify } from "node:crypto";
import { selfSignedCertificate } from "../../../services/mock-oidc/config/self_signed_cert.ts";
import { exception, fakeJwt, json, restError } from "./errors.ts";
import {
  type FakeJob,
  type FakeMessage,
  type FakeRunner,
  jobMessage,
  statisticsOf,
} from "./jobs.ts";
import { type Faults, newFaults } from "./faults.ts";

/** Options of {@linkcode startFakeGithub}. */
export interface FakeGithubOptions {
  /** `org` or `org/repo`: the config URL path the fake serves. @default {"org"} */
  target?: string;
  /** Personal access tokens accepted. */
  pats?: string[];
  /** GitHub App accepted: client id, installation id and the PEM public key verifying its JWTs. */
  app?: { clientId: string; installationId: number; publicKeyPem: string };
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

/** A request the fake saw. */
export interface SeenRequest {
  method: string;
  path: string;
  at: number;
}

interface Session {
  sessionId: string;
  scaleSetId: number;
  ownerName: string;
  token: string;
}

interface Waiter {
  scaleSetId: number;
  wake: () => void;
}

/** Handle of a running fake. */
export type FakeGithub = Awaited<ReturnType<typeof startFakeGithub>>;

/** Starts the fake. */
export async function startFakeGithub(options: FakeGithubOptions = {}) {
  const target = options.target ?? "org";
  const longPollMs = options.longPollMs ?? 50_000;
  const tls = options.tls ?? await selfSignedCertificate();
  const faults: Faults = newFaults();
  const pats = new Set(options.pats ?? []);
  const installTokens = new Set<string>();
  const regTokens = new Set<string>();
  const adminTokens = new Map<string, number>();
  const groups = [
    { id: 1, name: "Default", isDefaultGroup: true },
    ...(options.groups ?? []).map((name, i) => ({ id: i + 2, name, isDefaultGroup: false })),
  ];
  const scaleSets = new Map<number, Record<string, unknown> & { id: number; name: string }>();
  const sessions = new Map<string, Session>();
  const messages: FakeMessage[] = [];
  const jobs = new Map<number, FakeJob>();
  const runners = new Map<number, FakeRunner>();
  const waiters = new Set<Waiter>();
  const seen: SeenRequest[] = [];
  const nextId = { set: 1, msg: 1, job: 1, runner: 1 };
  let redeliver: FakeMessage | undefined;
  const bom = () => faults.bom;

  function post(scaleSetId: number, body: Record<string, unknown>[], lifecycle = false) {
    const msg = { messageId: nextId.msg++, scaleSetId, jobs: body, acked: false, lifecycle };
    messages.push(msg);
    for (const w of [...waiters]) {
      if (w.scaleSetId === scaleSetId && !(lifecycle && faults.noWake)) w.wake();
    }
    return msg;
  }
  const anySet = () => [...scaleSets.values()][0]?.id;
  const stats = (scaleSetId: number) =>
    statisticsOf(jobs.values(), [...runners.values()].filter((r) => r.scaleSetId === scaleSetId));

  function startOnRunner(job: FakeJob, runner: FakeRunner) {
    job.state = "running";
    job.runnerId = runner.id;
    job.runnerName = runner.name;
    job.runnerAssignTime = new Date().toISOString();
    runner.jobRequestId = job.runnerRequestId;
    post(runner.scaleSetId, [
      jobMessage("JobStarted", job, { runnerId: runner.id, runnerName: runner.name }),
    ], true);
    if (options.jobDurationMs) {
      setTimeout(() => api.completeJob(job.runnerRequestId), options.jobDurationMs);
    }
  }
  function dispatch() {
    for (const job of jobs.values()) {
      if (job.state !== "assigned") continue;
      const idle = [...runners.values()].find((r) => r.online && r.jobRequestId === undefined);
      if (!idle) return;
      startOnRunner(job, idle);
    }
  }

  // ---- Authentication helpers ----
  const bearer = (req: Request) =>
    /^Bearer (.+)$/.exec(req.headers.get("authorization") ?? "")?.[1];
  function adminOk(req: Request): boolean {
    const t = bearer(req);
    const exp = t ? adminTokens.get(t) : undefined;
    return exp !== undefined && exp > Date.now();
  }
  function verifyAppJwt(jwt: string): boolean {
    const app = options.app;
    if (!app) return false;
    const [h, p, s] = jwt.split(".");
    if (!h || !p || !s) return false;
    try {
      const dec = (x: string) =>
        Uint8Array.from(atob(x.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
      const header = JSON.parse(new TextDecoder().decode(dec(h)));
      const claims = JSON.parse(new TextDecoder().decode(dec(p)));
      const now = Date.now() / 1000;
      if (header.alg !== "RS256" || claims.iss !== app.clientId) return false;
      if (claims.exp - claims.iat > 600 || claims.exp < now || claims.iat > now + 60) return false;
      return verify("sha256", new TextEncoder().encode(`${h}.${p}`), app.publicKeyPem, dec(s));
    } catch {
      return false;
    }
  }

  // ---- Routes ----
  async function handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const path = url.pathname;
    const method = req.method;
    seen.push({ method, path, at: Date.now() });
    const injected = faults.take(path);
    if (injected) return injected;

    // REST API (GHES shape).
    let m = /^\/api\/v3\/app\/installations\/(\d+)\/access_tokens$/.exec(path);
    if (m && method === "POST") {
      const jwt = bearer(req);
      if (!jwt || !verifyAppJwt(jwt)) {
        return restError(401, "A JSON web token could not be decoded");
      }
      if (Number(m[1]) !== options.app?.installationId) return restError(404, "Not Found");
      const token = `ghs_${crypto.randomUUID().replace(/-/g, "")}`;
      installTokens.add(token);
      return json({ token, expires_at: new Date(Date.now() + 3600_000).toISOString() }, 201);
    }
    m = /^\/api\/v3\/(orgs|repos)\/(.+)\/actions\/runners\/registration-token$/.exec(path);
    if (m && method === "POST") {
      const t = bearer(req);
      if (!t || !(pats.has(t) || installTokens.has(t))) return restError(401, "Bad credentials");
      const scopeOk = (m[1] === "orgs") === !target.includes("/") && m[2] === target;
      if (!scopeOk) return restError(404, "Not Found");
      const token = `REG${crypto.randomUUID().replace(/-/g, "")}`;
      regTokens.add(token);
      return json({ token, expires_at: new Date(Date.now() + 3600_000).toISOString() }, 201);
    }
    if (path === "/api/v3/actions/runner-registration" && method === "POST") {
      const auth = /^RemoteAuth (.+)$/.exec(req.headers.get("authorization") ?? "")?.[1];
      if (!auth || !regTokens.has(auth)) return restError(401, "Bad credentials");
      const body = await req.json().catch(() => null);
      if (!body || typeof body.url !== "string" || body.runner_event !== "register") {
        return restError(400, "Bad request");
      }
      const expMs = Date.now() + (options.adminTokenTtlMs ?? 3600_000);
      const token = fakeJwt(expMs, "admin");
      adminTokens.set(token, expMs);
      return json({ url: `${origin}/tenant/1/`, token, token_schema: "OAuthAccessToken" }, 201);
    }

    // Message queue.
    m = /^\/queue\/([\w-]+)(?:\/(\d+))?$/.exec(path);
    if (m) return queue(req, m[1], m[2] === undefined ? undefined : Number(m[2]));

    // Actions service.
    if (!path.startsWith("/tenant/1/_apis/")) return restError(404, "Not Found");
    if (url.searchParams.get("api-version") !== "6.0-preview") {
      return exception(400, "VssInvalidPreviewVersionException", "api-version missing", bom());
    }
    const rest = path.slice("/tenant/1/".length);
    m = /^_apis\/runtime\/runnerscalesets\/(\d+)\/acquirejobs$/.exec(rest);
    if (m && method === "POST") {
      const s = [...sessions.values()].find((x) => x.token === bearer(req));
      if (!s || s.scaleSetId !== Number(m[1])) return json({ message: "unauthorized" }, 401);
      const ids = await req.json().catch(() => null);
      if (!Array.isArray(ids)) return exception(400, "ArgumentException", "bad body", bom());
      const acquired: number[] = [];
      for (const id of ids) {
        const job = jobs.get(id);
        if (job?.state !== "available") continue;
        job.state = "assigned";
        acquired.push(id);
        post(s.scaleSetId, [jobMessage("JobAssigned", job)]);
      }
      dispatch();
      return json({ count: acquired.length, value: acquired }, 200, bom());
    }
    if (!adminOk(req)) return json({ message: "Token expired or invalid" }, 401);
    return actions(req, rest, url);
  }

  async function actions(req: Request, rest: string, url: URL): Promise<Response> {
    const method = req.method;
    if (rest === "_apis/runtime/runnergroups/" && method === "GET") {
      const v = groups.filter((g) => g.name === url.searchParams.get("groupName"));
      return json({ count: v.length, value: v }, 200, bom());
    }
    if (rest === "_apis/runtime/runnerscalesets" && method === "GET") {
      const gid = Number(url.searchParams.get("runnerGroupId"));
      const name = url.searchParams.get("name");
      const v = [...scaleSets.values()].filter((s) => s.runnerGroupId === gid && s.name === name);
      return json({ count: v.length, value: v }, 200, bom());
    }
    if (rest === "_apis/runtime/runnerscalesets" && method === "POST") {
      const body = await req.json().catch(() => null);
      if (!body?.name || !groups.some((g) => g.id === body.runnerGroupId)) {
        return exception(400, "ArgumentException", "invalid scale set", bom());
      }
      const labels = (body.labels?.length ? body.labels : [{ name: body.name }])
        .map((l: { name: string; type?: string }) => ({ name: l.name, type: l.type ?? "System" }));
      const set = {
        ...body,
        id: nextId.set++,
        labels,
        runnerGroupName: groups.find((g) => g.id === body.runnerGroupId)!.name,
        createdOn: new Date().toISOString(),
      };
      scaleSets.set(set.id, set);
      return json(set, 200, bom());
    }
    let m = /^_apis\/runtime\/runnerscalesets\/(\d+)(\/.*)?$/.exec(rest);
    if (m) {
      const set = scaleSets.get(Number(m[1]));
      if (!set) {
        return exception(404, "RunnerScaleSetNotFoundException", "scale set not found", bom());
      }
      return scaleSetScoped(req, set.id, m[2] ?? "");
    }
    m = /^_apis\/distributedtask\/pools\/0\/agents(?:\/(\d+))?$/.exec(rest);
    if (m && method === "GET" && m[1] === undefined) {
      const v = [...runners.values()].filter((r) => r.name === url.searchParams.get("agentName"))
        .map(agentOf);
      return json({ count: v.length, value: v }, 200, bom());
    }
    if (m && m[1] !== undefined) {
      const r = runners.get(Number(m[1]));
      if (!r) return exception(404, "AgentNotFoundException", "agent not found", bom());
      if (method === "GET") return json(agentOf(r), 200, bom());
      if (method === "DELETE") {
        if (r.jobRequestId !== undefined) {
          return exception(400, "JobStillRunningException", "job still running", bom());
        }
        runners.delete(r.id);
        return new Response(null, { status: 204 });
      }
    }
    return exception(404, "NotFoundException", "no such endpoint", bom());
  }

  const agentOf = (r: FakeRunner) => ({
    id: r.id,
    name: r.name,
    runnerScaleSetId: r.scaleSetId,
    status: r.online ? "online" : "offline",
    busy: r.jobRequestId !== undefined,
  });

  async function scaleSetScoped(req: Request, setId: number, sub: string): Promise<Response> {
    const method = req.method;
    const set = scaleSets.get(setId)!;
    if (sub === "" && method === "GET") return json(set, 200, bom());
    if (sub === "" && method === "PATCH") {
      Object.assign(set, await req.json().catch(() => ({})), { id: setId });
      return json(set, 200, bom());
    }
    if (sub === "" && method === "DELETE") {
      api.deleteScaleSet(setId);
      return new Response(null, { status: 204 });
    }
    if (sub === "/sessions" && method === "POST") {
      const body = await req.json().catch(() => null);
      if (!body?.ownerName) return exception(400, "ArgumentException", "ownerName", bom());
      // One live session per scale set and owner (a crashed listener restarting under the same
      // host name meets its own stale session); other owners share the scale set.
      const active = [...sessions.values()].find((s) =>
        s.scaleSetId === setId && s.ownerName === body.ownerName
      );
      if (active || faults.staleSessionAttempts > 0) {
        if (!active) faults.staleSessionAttempts--;
        return exception(
          409,
          "TaskAgentSessionConflictException",
          `The scale set ${set.name} already has an active session for owner ${
            active?.ownerName ?? "stale-host"
          }.`,
          bom(),
        );
      }
      const s = {
        sessionId: crypto.randomUUID(),
        scaleSetId: setId,
        ownerName: body.ownerName,
        token: fakeJwt(Date.now() + (options.queueTokenTtlMs ?? 3600_000), "queue"),
      };
      sessions.set(s.sessionId, s);
      return json(sessionBody(s), 200, bom());
    }
    const m = /^\/sessions\/([\w-]+)$/.exec(sub);
    if (m) {
      const s = sessions.get(m[1]);
      if (!s || s.scaleSetId !== setId) {
        return exception(404, "TaskAgentSessionExpiredException", "session not found", bom());
      }
      if (method === "PATCH") {
        s.token = fakeJwt(Date.now() + (options.queueTokenTtlMs ?? 3600_000), "queue");
        return json(sessionBody(s), 200, bom());
      }
      if (method === "DELETE") {
        sessions.delete(s.sessionId);
        return new Response(null, { status: 204 });
      }
    }
    if (sub === "/generatejitconfig" && method === "POST") {
      const body = await req.json().catch(() => null);
      if (typeof body?.name !== "string" || body.name === "") {
        return exception(400, "ArgumentException", "name", bom());
      }
      if ([...runners.values()].some((r) => r.name === body.name)) {
        return exception(409, "AgentExistsException", "agent exists", bom());
      }
      const r: FakeRunner = {
        id: nextId.runner++,
        name: body.name,
        scaleSetId: setId,
        jit: btoa(JSON.stringify({ runner: body.name, secret: crypto.randomUUID() })),
        online: false,
      };
      runners.set(r.id, r);
      return json(
        {
          runner: { id: r.id, name: r.name, runnerScaleSetId: setId },
          encodedJITConfig: r.jit,
        },
        200,
        bom(),
      );
    }
    return exception(404, "NotFoundException", "no such endpoint", bom());
  }

  const sessionBody = (s: Session) => {
    const empty = faults.emptyQueueUrl > 0 ? (faults.emptyQueueUrl--, true) : false;
    return {
      sessionId: s.sessionId,
      ownerName: s.ownerName,
      runnerScaleSet: scaleSets.get(s.scaleSetId),
      messageQueueUrl: empty ? "" : `${origin}/queue/${s.sessionId}`,
      messageQueueAccessToken: s.token,
      statistics: stats(s.scaleSetId),
    };
  };

  async function queue(req: Request, sid: string, ackId?: number): Promise<Response> {
    const s = sessions.get(sid);
    if (!s) return json({ message: "session not found" }, 401);
    if (bearer(req) !== s.token) return json({ message: "token expired" }, 401);
    if (ackId !== undefined) {
      if (req.method !== "DELETE") return json({ message: "method" }, 405);
      const msg = messages.find((x) => x.messageId === ackId && x.scaleSetId === s.scaleSetId);
      if (msg) msg.acked = true;
      return new Response(null, { status: 204 });
    }
    if (req.method !== "GET") return json({ message: "method" }, 405);
    const cap = req.headers.get("x-scalesetmaxcapacity");
    if (cap === null || !/^\d+$/.test(cap)) {
      return exception(400, "ArgumentException", "X-ScaleSetMaxCapacity missing", bom());
    }
    const last = Number(new URL(req.url).searchParams.get("lastMessageId") ?? 0);
    const pick = () => {
      if (redeliver) {
        const r = redeliver;
        redeliver = undefined;
        return r;
      }
      return messages.find((x) => x.scaleSetId === s.scaleSetId && !x.acked && x.messageId > last);
    };
    let msg = pick();
    if (!msg) {
      // A poll whose client went away still waits out its time (the fake does not read
      // req.signal): its message, if any, stays unacknowledged and is delivered again.
      const woken = await new Promise<boolean>((resolve) => {
        const w: Waiter = { scaleSetId: s.scaleSetId, wake: () => done(true) };
        const t = setTimeout(() => done(false), longPollMs);
        function done(v: boolean) {
          clearTimeout(t);
          waiters.delete(w);
          resolve(v);
        }
        waiters.add(w);
      });
      if (woken && sessions.get(sid)?.token === s.token) msg = pick();
    }
    if (!msg) return new Response(null, { status: 202 });
    return json(
      {
        messageId: msg.messageId,
        messageType: "RunnerScaleSetJobMessages",
        body: JSON.stringify(msg.jobs),
        statistics: stats(s.scaleSetId),
      },
      200,
      bom(),
    );
  }

  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: tls.cert, key: tls.key, onListen() {} },
    (req) => handle(req).catch((err) => json({ message: String(err) }, 500)),
  );
  const origin = `https://127.0.0.1:${server.addr.port}`;

  const api = {
    origin,
    caCert: tls.cert,
    /** The config URL a controller uses. */
    configUrl: `${origin}/${target}`,
    faults,
    seen,
    scaleSets,
    sessions,
    runners,
    jobs,
    messages,
    /** Queues a job for the first (or given) scale set; JobAvailable is posted when enabled. */
    queueJob(scaleSetId = anySet()): FakeJob {
      const n = nextId.job++;
      const job: FakeJob = {
        runnerRequestId: n,
        jobId: `job-${n}`,
        state: "available",
        queueTime: new Date().toISOString(),
      };
      jobs.set(n, job);
      if (scaleSetId !== undefined && (options.sendJobAvailable ?? true)) {
        post(scaleSetId, [jobMessage("JobAvailable", job, { acquireJobUrl: `${origin}/acquire` })]);
      } else if (scaleSetId !== undefined) {
        job.state = "assigned";
        post(scaleSetId, [jobMessage("JobAssigned", job)]);
        dispatch();
      }
      return job;
    },
    /** The guest of a runner started its runner process with `jit`; returns the runner. */
    runnerConnect(jit: string): FakeRunner | undefined {
      const r = [...runners.values()].find((x) => x.jit === jit);
      if (!r) return undefined;
      r.online = true;
      dispatch();
      return r;
    },
    /** Completes a running job: JobCompleted, then the ephemeral runner unregisters. */
    completeJob(runnerRequestId: number, result = "succeeded") {
      const job = jobs.get(runnerRequestId);
      if (!job || job.state !== "running") return;
      job.state = "completed";
      job.result = result;
      const r = job.runnerId === undefined ? undefined : runners.get(job.runnerId);
      if (r) runners.delete(r.id);
      const set = r?.scaleSetId ?? anySet();
      if (set !== undefined) {
        post(set, [jobMessage("JobCompleted", job, {
          runnerId: job.runnerId,
          runnerName: job.runnerName,
          result,
          finishTime: new Date().toISOString(),
        })], true);
      }
      if (r) options.onRunnerDone?.(r.name);
    },
    /** The service deletes the scale set (inactivity, broker incident). */
    deleteScaleSet(id = anySet()) {
      if (id === undefined) return;
      scaleSets.delete(id);
      for (const s of [...sessions.values()]) if (s.scaleSetId === id) sessions.delete(s.sessionId);
      faults.setDeleted = true;
      for (const w of [...waiters]) w.wake();
    },
    /** Every queue token expires: the next queue call answers 401 until the session is refreshed. */
    expireQueueTokens() {
      for (const s of sessions.values()) {
        s.token = fakeJwt(Date.now() + (options.queueTokenTtlMs ?? 3600_000), "queue");
      }
    },
    /** The broker evicts every session: queue calls 401, refresh 404. */
    evictSessions() {
      sessions.clear();
      for (const w of [...waiters]) w.wake();
    },
    /** Every admin token stops working (the client must run the auth chain again). */
    expireAdminTokens() {
      adminTokens.clear();
    },
    /** The next poll delivers the last acknowledged message again (a redelivery). */
    redeliverLast() {
      redeliver = [...messages].reverse().find((x) => x.acked);
    },
    /** Adds a scale set as if created earlier by someone else. */
    addScaleSet(
      set: { name: string; runnerGroupId?: number; labels?: string[]; disableUpdate?: boolean },
    ) {
      const s = {
        id: nextId.set++,
        name: set.name,
        runnerGroupId: set.runnerGroupId ?? 1,
        labels: (set.labels ?? [set.name]).map((name) => ({ name, type: "System" })),
        ...(set.disableUpdate === undefined
          ? {}
          : { RunnerSetting: { disableUpdate: set.disableUpdate } }),
      };
      scaleSets.set(s.id, s);
      return s;
    },
    /** Current statistics of a scale set. */
    statistics: (id = anySet() ?? 0) => stats(id),
    /** Requests seen matching `pattern`. */
    count: (method: string, pattern: RegExp) =>
      seen.filter((r) => r.method === method && pattern.test(r.path)).length,
    async close() {
      for (const w of [...waiters]) w.wake();
      await server.shutdown();
    },
  };
  return api;
}
