/**
 * The Actions-service part of the fake (under `/tenant/1/`, `api-version=6.0-preview`): runner
 * groups, scale sets, message sessions, AcquireJobs (with the queue token), JIT configs and
 * agents, answering errors as `typeName` exceptions (optionally BOM-prefixed).
 *
 * @module
 */
import { exception, json } from "./errors.ts";
import { type FakeRunner, jobMessage } from "./jobs.ts";
import { bearer, type World } from "./world.ts";

function adminOk(w: World, req: Request): boolean {
  const t = bearer(req);
  const exp = t ? w.adminTokens.get(t) : undefined;
  return exp !== undefined && exp > Date.now();
}

/** Answers an Actions-service request. */
export async function handleActions(w: World, req: Request, url: URL): Promise<Response> {
  const path = url.pathname;
  const method = req.method;
  if (!path.startsWith("/tenant/1/_apis/")) return json({ message: "Not Found" }, 404);
  if (url.searchParams.get("api-version") !== "6.0-preview") {
    return exception(400, "VssInvalidPreviewVersionException", "api-version missing", w.bom());
  }
  const rest = path.slice("/tenant/1/".length);
  const m = /^_apis\/runtime\/runnerscalesets\/(\d+)\/acquirejobs$/.exec(rest);
  if (m && method === "POST") {
    const s = [...w.sessions.values()].find((x) => x.token === bearer(req));
    if (!s || s.scaleSetId !== Number(m[1])) return json({ message: "unauthorized" }, 401);
    const ids = await req.json().catch(() => null);
    if (!Array.isArray(ids)) return exception(400, "ArgumentException", "bad body", w.bom());
    const acquired: number[] = [];
    for (const id of ids) {
      const job = w.jobs.get(id);
      if (job?.state !== "available") continue;
      job.state = "assigned";
      acquired.push(id);
      w.post(s.scaleSetId, [jobMessage("JobAssigned", job)]);
    }
    w.dispatch();
    return json({ count: acquired.length, value: acquired }, 200, w.bom());
  }
  if (!adminOk(w, req)) return json({ message: "Token expired or invalid" }, 401);
  return actions(w, req, rest, url);
}

async function actions(w: World, req: Request, rest: string, url: URL): Promise<Response> {
  const method = req.method;
  if (rest === "_apis/runtime/runnergroups/" && method === "GET") {
    const v = w.groups.filter((g) => g.name === url.searchParams.get("groupName"));
    return json({ count: v.length, value: v }, 200, w.bom());
  }
  if (rest === "_apis/runtime/runnerscalesets" && method === "GET") {
    const gid = Number(url.searchParams.get("runnerGroupId"));
    const name = url.searchParams.get("name");
    const v = [...w.scaleSets.values()].filter((s) => s.runnerGroupId === gid && s.name === name);
    return json({ count: v.length, value: v }, 200, w.bom());
  }
  if (rest === "_apis/runtime/runnerscalesets" && method === "POST") {
    const body = await req.json().catch(() => null);
    if (!body?.name || !w.groups.some((g) => g.id === body.runnerGroupId)) {
      return exception(400, "ArgumentException", "invalid scale set", w.bom());
    }
    const labels = (body.labels?.length ? body.labels : [{ name: body.name }])
      .map((l: { name: string; type?: string }) => ({ name: l.name, type: l.type ?? "System" }));
    const set = {
      ...body,
      id: w.nextId.set++,
      labels,
      runnerGroupName: w.groups.find((g) => g.id === body.runnerGroupId)!.name,
      createdOn: new Date().toISOString(),
    };
    w.scaleSets.set(set.id, set);
    return json(set, 200, w.bom());
  }
  let m = /^_apis\/runtime\/runnerscalesets\/(\d+)(\/.*)?$/.exec(rest);
  if (m) {
    const set = w.scaleSets.get(Number(m[1]));
    if (!set) {
      return exception(404, "RunnerScaleSetNotFoundException", "scale set not found", w.bom());
    }
    return scaleSetScoped(w, req, set.id, m[2] ?? "");
  }
  m = /^_apis\/distributedtask\/pools\/0\/agents(?:\/(\d+))?$/.exec(rest);
  if (m && method === "GET" && m[1] === undefined) {
    const v = [...w.runners.values()].filter((r) => r.name === url.searchParams.get("agentName"))
      .map(agentOf);
    return json({ count: v.length, value: v }, 200, w.bom());
  }
  if (m && m[1] !== undefined) {
    const r = w.runners.get(Number(m[1]));
    if (!r) return exception(404, "AgentNotFoundException", "agent not found", w.bom());
    if (method === "GET") return json(agentOf(r), 200, w.bom());
    if (method === "DELETE") {
      if (r.jobRequestId !== undefined) {
        return exception(400, "JobStillRunningException", "job still running", w.bom());
      }
      w.runners.delete(r.id);
      return new Response(null, { status: 204 });
    }
  }
  return exception(404, "NotFoundException", "no such endpoint", w.bom());
}

const agentOf = (r: FakeRunner) => ({
  id: r.id,
  name: r.name,
  runnerScaleSetId: r.scaleSetId,
  status: r.online ? "online" : "offline",
  busy: r.jobRequestId !== undefined,
});

async function scaleSetScoped(
  w: World,
  req: Request,
  setId: number,
  sub: string,
): Promise<Response> {
  const method = req.method;
  const set = w.scaleSets.get(setId)!;
  if (sub === "" && method === "GET") return json(set, 200, w.bom());
  if (sub === "" && method === "PATCH") {
    Object.assign(set, await req.json().catch(() => ({})), { id: setId });
    return json(set, 200, w.bom());
  }
  if (sub === "" && method === "DELETE") {
    w.deleteScaleSet(setId);
    return new Response(null, { status: 204 });
  }
  if (sub === "/sessions" && method === "POST") {
    const body = await req.json().catch(() => null);
    if (!body?.ownerName) return exception(400, "ArgumentException", "ownerName", w.bom());
    // One live session per scale set and owner (a crashed listener restarting under the same
    // host name meets its own stale session); other owners share the scale set.
    const active = [...w.sessions.values()].find((s) =>
      s.scaleSetId === setId && s.ownerName === body.ownerName
    );
    if (active || w.faults.staleSessionAttempts > 0) {
      if (!active) w.faults.staleSessionAttempts--;
      return exception(
        409,
        "TaskAgentSessionConflictException",
        `The scale set ${set.name} already has an active session for owner ${
          active?.ownerName ?? "stale-host"
        }.`,
        w.bom(),
      );
    }
    const s = {
      sessionId: crypto.randomUUID(),
      scaleSetId: setId,
      ownerName: body.ownerName,
      token: w.queueToken(),
    };
    w.sessions.set(s.sessionId, s);
    return json(w.sessionBody(s), 200, w.bom());
  }
  const m = /^\/sessions\/([\w-]+)$/.exec(sub);
  if (m) {
    const s = w.sessions.get(m[1]);
    if (!s || s.scaleSetId !== setId) {
      return exception(404, "TaskAgentSessionExpiredException", "session not found", w.bom());
    }
    if (method === "PATCH") {
      s.token = w.queueToken();
      return json(w.sessionBody(s), 200, w.bom());
    }
    if (method === "DELETE") {
      w.sessions.delete(s.sessionId);
      return new Response(null, { status: 204 });
    }
  }
  if (sub === "/generatejitconfig" && method === "POST") {
    const body = await req.json().catch(() => null);
    if (typeof body?.name !== "string" || body.name === "") {
      return exception(400, "ArgumentException", "name", w.bom());
    }
    if ([...w.runners.values()].some((r) => r.name === body.name)) {
      return exception(409, "AgentExistsException", "agent exists", w.bom());
    }
    const r: FakeRunner = {
      id: w.nextId.runner++,
      name: body.name,
      scaleSetId: setId,
      jit: btoa(JSON.stringify({ runner: body.name, secret: crypto.randomUUID() })),
      online: false,
    };
    w.runners.set(r.id, r);
    return json(
      {
        runner: { id: r.id, name: r.name, runnerScaleSetId: setId },
        encodedJITConfig: r.jit,
      },
      200,
      w.bom(),
    );
  }
  return exception(404, "NotFoundException", "no such endpoint", w.bom());
}
