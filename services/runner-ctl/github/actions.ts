/**
 * The Actions-service endpoints the controller uses (relative to the base `runner-registration`
 * returned, built by `service_url.ts`: the path is appended, never resolved, and ids from answers
 * are whole segments). Admin calls carry the admin token and `api-version=6.0-preview`; after a
 * 401 the admin connection is renewed and the call is made once more.
 *
 * @module
 */
import type { ActionsAuth } from "./auth.ts";
import { ActionsError } from "./errors.ts";
import { call, type CallResult, type HttpDeps, jsonOf } from "./http.ts";
import { type PathSegment, serviceUrl } from "./service_url.ts";
import type { JitConfig, MessageSession, RunnerReference, RunnerScaleSet } from "./types.ts";

const SCALE_SETS = ["_apis", "runtime", "runnerscalesets"] as const;
const AGENTS = ["_apis", "distributedtask", "pools", 0, "agents"] as const;

interface Collection<T> {
  count: number;
  value: T[];
}

/** Options of one admin request. */
interface AdminRequest {
  what: string;
  method: string;
  /** Below the service base; ids from answers are checked as whole segments. */
  path: readonly PathSegment[];
  query?: Record<string, string>;
  body?: unknown;
  /** Replaces the admin token (AcquireJobs uses the message-queue token). */
  bearer?: string;
  signal?: AbortSignal;
}

/** Client of the Actions service. */
export class ActionsClient {
  readonly auth: ActionsAuth;
  readonly http: HttpDeps;

  constructor(auth: ActionsAuth, http: HttpDeps) {
    this.auth = auth;
    this.http = http;
  }

  async #admin(req: AdminRequest): Promise<CallResult> {
    for (let attempt = 0;; attempt++) {
      const conn = await this.auth.connection(req.signal);
      try {
        return await call(this.http, {
          what: req.what,
          method: req.method,
          url: serviceUrl(conn.url, {
            what: req.what,
            segments: req.path,
            query: req.query,
            apiVersion: true,
          }),
          headers: { Authorization: `Bearer ${req.bearer ?? conn.token}` },
          body: req.body,
          signal: req.signal,
        });
      } catch (err) {
        const retry = err instanceof ActionsError && err.code === "unauthorized" &&
          req.bearer === undefined && attempt === 0;
        if (!retry) throw err;
        this.auth.invalidate();
      }
    }
  }

  /** Runner group id by name; the default group is id 1 without a lookup. */
  async runnerGroupId(name: string, signal?: AbortSignal): Promise<number> {
    if (name === "default") return 1;
    const what = "look up the runner group";
    const res = await this.#admin({
      what,
      method: "GET",
      path: ["_apis", "runtime", "runnergroups", ""],
      query: { groupName: name },
      signal,
    });
    const body = jsonOf<Collection<{ id: number; name: string }>>(what, res);
    const match = (body.value ?? []).filter((g) => g.name === name);
    if (match.length !== 1) {
      throw new ActionsError("not_found", `Cannot ${what}: no runner group has that name`);
    }
    return match[0].id;
  }

  /** The scale set of that name in that group, or undefined. */
  async getScaleSet(
    groupId: number,
    name: string,
    signal?: AbortSignal,
  ): Promise<RunnerScaleSet | undefined> {
    const what = "get the runner scale set";
    const res = await this.#admin({
      what,
      method: "GET",
      path: SCALE_SETS,
      query: { runnerGroupId: String(groupId), name },
      signal,
    });
    const body = jsonOf<Collection<RunnerScaleSet>>(what, res);
    if (!body.count || !body.value?.length) return undefined;
    if (body.count > 1) {
      throw new ActionsError("bad_response", `Cannot ${what}: more than one matches the name`);
    }
    return body.value[0];
  }

  /** Creates a scale set (the service answers 200). */
  async createScaleSet(
    set: Omit<RunnerScaleSet, "id">,
    signal?: AbortSignal,
  ): Promise<RunnerScaleSet> {
    const what = "create the runner scale set";
    const res = await this.#admin({
      what,
      method: "POST",
      path: SCALE_SETS,
      body: set,
      signal,
    });
    return jsonOf<RunnerScaleSet>(what, res);
  }

  /** Opens a message session; a 409 (stale session of another owner) is `session_conflict`. */
  async createSession(
    scaleSetId: number,
    ownerName: string,
    signal?: AbortSignal,
  ): Promise<MessageSession> {
    const what = "create a message session";
    const res = await this.#admin({
      what,
      method: "POST",
      path: [...SCALE_SETS, scaleSetId, "sessions"],
      body: { ownerName },
      signal,
    });
    return jsonOf<MessageSession>(what, res);
  }

  /** Renews the session's queue token; a 404 means the broker dropped the session. */
  async refreshSession(
    scaleSetId: number,
    sessionId: string,
    signal?: AbortSignal,
  ): Promise<MessageSession> {
    const what = "refresh the message session";
    const res = await this.#admin({
      what,
      method: "PATCH",
      path: [...SCALE_SETS, scaleSetId, "sessions", sessionId],
      signal,
    });
    return jsonOf<MessageSession>(what, res);
  }

  /** Deletes a session (on shutdown). */
  async deleteSession(
    scaleSetId: number,
    sessionId: string,
    signal?: AbortSignal,
  ): Promise<void> {
    await this.#admin({
      what: "delete the message session",
      method: "DELETE",
      path: [...SCALE_SETS, scaleSetId, "sessions", sessionId],
      signal,
    });
  }

  /** Acquires jobs (authenticated with the queue token); returns the acquired request ids. */
  async acquireJobs(
    scaleSetId: number,
    queueToken: string,
    ids: number[],
    signal?: AbortSignal,
  ): Promise<number[]> {
    const what = "acquire jobs";
    const res = await this.#admin({
      what,
      method: "POST",
      path: [...SCALE_SETS, scaleSetId, "acquirejobs"],
      body: ids,
      bearer: queueToken,
      signal,
    });
    return jsonOf<Collection<number>>(what, res).value ?? [];
  }

  /** Registers a just-in-time runner; `agent_exists` when the name is taken. */
  async generateJitConfig(
    scaleSetId: number,
    name: string,
    signal?: AbortSignal,
  ): Promise<JitConfig> {
    const what = "generate a runner JIT config";
    const res = await this.#admin({
      what,
      method: "POST",
      path: [...SCALE_SETS, scaleSetId, "generatejitconfig"],
      body: { name, workFolder: "_work" },
      signal,
    });
    const jit = jsonOf<JitConfig>(what, res);
    if (!jit.encodedJITConfig || !Number.isSafeInteger(jit.runner?.id) || jit.runner.id < 1) {
      throw new ActionsError("bad_response", `Cannot ${what}: the response lacks the config`);
    }
    return jit;
  }

  /** The runner registered under `name`, or undefined. */
  async getRunnerByName(
    name: string,
    signal?: AbortSignal,
  ): Promise<RunnerReference | undefined> {
    const what = "look up a runner";
    const res = await this.#admin({
      what,
      method: "GET",
      path: AGENTS,
      query: { agentName: name },
      signal,
    });
    const body = jsonOf<Collection<RunnerReference>>(what, res);
    return body.value?.[0];
  }

  /** The runner with that id, or undefined when it is gone. */
  async getRunner(id: number, signal?: AbortSignal): Promise<RunnerReference | undefined> {
    const what = "get a runner";
    try {
      const res = await this.#admin({
        what,
        method: "GET",
        path: [...AGENTS, id],
        signal,
      });
      return jsonOf<RunnerReference>(what, res);
    } catch (err) {
      if (err instanceof ActionsError && ["agent_not_found", "not_found"].includes(err.code)) {
        return undefined;
      }
      throw err;
    }
  }

  /**
   * Removes a runner registration. Resolves "removed" or "gone" (AgentNotFound); a busy runner
   * rejects with `job_still_running`.
   */
  async removeRunner(id: number, signal?: AbortSignal): Promise<"removed" | "gone"> {
    try {
      await this.#admin({
        what: "remove a runner",
        method: "DELETE",
        path: [...AGENTS, id],
        signal,
      });
      return "removed";
    } catch (err) {
      if (err instanceof ActionsError && err.code === "agent_not_found") return "gone";
      throw err;
    }
  }
}
