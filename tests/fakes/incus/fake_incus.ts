// deno-lint-ignore-file camelcase -- Incus wire field names (status_code, created_at, …)
/**
 * A fake Incus daemon on a Unix socket, speaking the REST API the controller uses (reference
 * runner-ctl-protocols.md §2 and §5.3): the envelope, async operations with both `/wait`
 * flavours, projects, profiles, image aliases, instance lifecycle (create with asynchronous
 * validation errors, start, stop, "Instance is running" on delete), `filter=` and `recursion=`,
 * the raw console log, file push, operation cancel (and its refusals), and a simulated guest: a VM whose agent comes up after a delay,
 * whose runner reads the `user.runner-ctl-jitconfig` key, reports Ready (113) and powers off
 * after its job.
 *
 * @module
 */
import { asyncResponse, incusError, matchesFilter, sync } from "./envelope.ts";
import { OperationStore } from "./operations.ts";

/** One instance of the fake. */
export interface FakeInstance {
  name: string;
  project: string;
  type: "virtual-machine" | "container";
  config: Record<string, string>;
  devices: Record<string, Record<string, string>>;
  profiles: string[];
  status: "Stopped" | "Running" | "Ready";
  agent: boolean;
  console: string;
  files: Map<string, { mode: string; data: string }>;
  created_at: string;
}

/** Options of {@linkcode startFakeIncus}. */
export interface FakeIncusOptions {
  /** Socket path; a temp path when absent. */
  path?: string;
  /** Extra images: alias → {fingerprint, type}. A VM image `runner` always exists. */
  images?: Record<
    string,
    { fingerprint: string; type: "virtual-machine" | "container"; profiles?: string[] }
  >;
  /** How long an operation takes. @default {10} */
  operationMs?: number;
  /** How long completed operations are kept. @default {5000} */
  retainMs?: number;
  /** Delay until a started VM's agent answers and its guest reads the JIT config. @default {50} */
  agentDelayMs?: number;
  /**
   * The guest's runner process started with this JIT config. Return true to report Ready; false
   * leaves the instance Running without Ready (a stuck bootstrap).
   */
  onGuestBoot?: (instance: FakeInstance, jitConfig: string) => boolean;
}

const NAME = /^(?!-)(?!\d+$)[A-Za-z0-9-]{1,63}(?<!-)$/;
const STATUS_CODE = { Stopped: 102, Running: 103, Ready: 113 } as const;

/** A running fake daemon. */
export type FakeIncus = Awaited<ReturnType<typeof startFakeIncus>>;

/** Starts the fake daemon. */
export async function startFakeIncus(options: FakeIncusOptions = {}) {
  const path = options.path ?? `${await Deno.makeTempDir({ prefix: "fake-incus-" })}/unix.socket`;
  const opMs = options.operationMs ?? 10;
  const ops = new OperationStore(options.retainMs ?? 5000);
  const projects = new Map([["default", {
    name: "default",
    config: { "features.profiles": "true" },
  }]]);
  const profiles = new Map<
    string,
    {
      name: string;
      description: string;
      config: Record<string, string>;
      devices: Record<string, Record<string, string>>;
    }
  >([
    ["default/default", {
      name: "default",
      description: "Default Incus profile",
      config: { "limits.cpu": "2" },
      devices: { root: { type: "disk", path: "/", pool: "default" } },
    }],
  ]);
  const images = new Map<string, { fingerprint: string; type: string; profiles?: string[] }>(
    Object.entries({
      runner: { fingerprint: "a".repeat(64), type: "virtual-machine" },
      ...options.images,
    }),
  );
  const instances = new Map<string, FakeInstance>();
  const seen: { method: string; path: string; at: number; body?: unknown }[] = [];
  const faults = { failNextCreate: "", failNextDelete: "", slowMs: 0, consoleBytes: 0 };
  const key = (project: string, name: string) => `${project}/${name}`;

  function instanceBody(i: FakeInstance, withState: boolean) {
    const expanded: Record<string, string> = {};
    const devices: Record<string, Record<string, string>> = {};
    for (const p of i.profiles) {
      const prof = profiles.get(key(i.project, p)) ?? profiles.get(key("default", p));
      Object.assign(expanded, prof?.config);
      Object.assign(devices, prof?.devices);
    }
    Object.assign(expanded, i.config);
    Object.assign(devices, i.devices);
    return {
      name: i.name,
      project: i.project,
      type: i.type,
      status: i.status,
      status_code: STATUS_CODE[i.status],
      config: i.config,
      expanded_config: expanded,
      devices: i.devices,
      expanded_devices: devices,
      profiles: i.profiles,
      created_at: i.created_at,
      ephemeral: false,
      ...(withState ? { state: stateOf(i) } : {}),
    };
  }
  const stateOf = (i: FakeInstance) => ({
    status: i.status,
    status_code: STATUS_CODE[i.status],
    processes: i.status === "Stopped" ? 0 : i.type === "virtual-machine" && !i.agent ? -1 : 12,
    pid: i.status === "Stopped" ? 0 : 4242,
  });

  function boot(i: FakeInstance) {
    i.console += `[    0.000000] Linux version 6.1.0 (${i.name})\r\n`;
    ops.later(() => {
      if (i.status === "Stopped") return;
      i.agent = true;
      i.console += "incus-agent: started\r\n";
      const jit = i.config["user.runner-ctl-jitconfig"];
      if (!jit) return;
      i.console += "runner: connecting with the JIT config\r\n";
      const ready = options.onGuestBoot ? options.onGuestBoot(i, jit) : true;
      if (ready) i.status = "Ready";
    }, options.agentDelayMs ?? 50);
  }

  async function handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const project = url.searchParams.get("project") ?? "default";
    const p = url.pathname;
    const method = req.method;
    const bodyText = ["POST", "PUT", "PATCH"].includes(method) ? await req.text() : "";
    let body: Record<string, unknown> | undefined;
    if (bodyText && !p.endsWith("/files")) {
      try {
        body = JSON.parse(bodyText);
      } catch {
        return incusError(400, "Invalid JSON body");
      }
    }
    seen.push({ method, path: p, at: Date.now(), body });
    if (faults.slowMs) await new Promise((r) => setTimeout(r, faults.slowMs));
    if (p === "/1.0" && method === "GET") {
      return sync({
        api_extensions: ["instances", "api_filtering", "instance_create_start"],
        api_status: "stable",
        api_version: "1.0",
        auth: "trusted",
        environment: { server_version: "6.0.4", driver: "lxc | qemu", server_name: "fake" },
      });
    }
    let m = /^\/1\.0\/projects\/([^/]+)$/.exec(p);
    if (m && method === "GET") {
      const pr = projects.get(decodeURIComponent(m[1]));
      return pr ? sync(pr) : incusError(404, "Project not found");
    }
    if (!projects.has(project)) return incusError(404, "Project not found");
    m = /^\/1\.0\/profiles\/([^/]+)$/.exec(p);
    if (m && method === "GET") {
      const prof = profiles.get(key(project, decodeURIComponent(m[1])));
      return prof ? sync({ ...prof, project, used_by: [] }) : incusError(404, "Profile not found");
    }
    m = /^\/1\.0\/images\/aliases\/([^/]+)$/.exec(p);
    if (m && method === "GET") {
      const img = images.get(decodeURIComponent(m[1]));
      return img
        ? sync({
          name: decodeURIComponent(m[1]),
          target: img.fingerprint,
          type: img.type,
          description: "",
        })
        : incusError(404, "Image alias not found");
    }
    m = /^\/1\.0\/images\/([0-9a-f]+)$/.exec(p);
    if (m && method === "GET") {
      const found = [...images.values()].filter((i) => i.fingerprint.startsWith(m![1]));
      const unique = [...new Map(found.map((f) => [f.fingerprint, f])).values()];
      if (unique.length !== 1) return incusError(404, "Image not found");
      return sync({
        fingerprint: unique[0].fingerprint,
        type: unique[0].type,
        architecture: "x86_64",
        properties: {},
        // Incus: the profiles an instance gets from this image when it names none.
        profiles: unique[0].profiles ?? ["default"],
      });
    }
    m = /^\/1\.0\/operations\/([\w-]+)(\/wait)?$/.exec(p);
    if (m && method === "GET") {
      return m[2] ? ops.wait(m[1], Number(url.searchParams.get("timeout") ?? -1)) : ops.get(m[1]);
    }
    if (m && !m[2] && method === "DELETE") return ops.cancel(m[1]);
    if (p === "/1.0/instances" && method === "GET") return listInstances(url, project);
    if (p === "/1.0/instances" && method === "POST") return createInstance(body ?? {}, project);
    m = /^\/1\.0\/instances\/([^/]+)(\/state|\/console|\/files)?$/.exec(p);
    if (!m) return incusError(404, "not found");
    const i = instances.get(key(project, decodeURIComponent(m[1])));
    if (!i) {
      return incusError(
        404,
        `Failed to fetch instance "${
          decodeURIComponent(m[1])
        }" in project "${project}": Instance not found`,
      );
    }
    const sub = m[2] ?? "";
    if (sub === "" && method === "GET") {
      return sync(instanceBody(i, url.searchParams.get("recursion") === "1"), 200, {
        ETag: `"${i.created_at}"`,
      });
    }
    if (sub === "" && method === "PATCH") {
      const cfg = (body?.config ?? {}) as Record<string, string>;
      for (const [k, v] of Object.entries(cfg)) {
        if (v === "") delete i.config[k];
        else i.config[k] = String(v);
      }
      return sync({});
    }
    if (sub === "" && method === "DELETE") {
      if (i.status !== "Stopped") return incusError(400, "Instance is running");
      const op = ops.start(
        "Deleting instance",
        { instances: [`/1.0/instances/${i.name}`] },
        opMs,
        () => {
          if (faults.failNextDelete) {
            const e = faults.failNextDelete;
            faults.failNextDelete = "";
            throw new Error(e);
          }
          instances.delete(key(project, i.name));
        },
      );
      return asyncResponse(op);
    }
    if (sub === "/state" && method === "GET") return sync(stateOf(i));
    if (sub === "/state" && method === "PUT") {
      const action = body?.action;
      if (action !== "start" && action !== "stop") return incusError(400, "Unknown state action");
      const op = ops.start(
        `${action === "start" ? "Starting" : "Stopping"} instance`,
        { instances: [`/1.0/instances/${i.name}`] },
        opMs,
        () => {
          if (action === "start") {
            if (i.status !== "Stopped") throw new Error("The instance is already running");
            i.status = "Running";
            boot(i);
          } else {
            if (i.status === "Stopped") throw new Error("The instance is already stopped");
            api.powerOff(i.name, project);
          }
        },
      );
      return asyncResponse(op);
    }
    if (sub === "/console") {
      if (url.searchParams.get("type") !== "log") {
        return incusError(400, "Unsupported console type");
      }
      if (method === "DELETE") {
        i.console = "";
        return sync({});
      }
      return new Response(i.console, { headers: { "content-type": "application/octet-stream" } });
    }
    if (sub === "/files" && method === "POST") {
      const fp = url.searchParams.get("path");
      if (!fp?.startsWith("/")) return incusError(400, "Missing or invalid path");
      if (i.type === "virtual-machine" && !i.agent) {
        return incusError(400, "VM agent isn't currently running");
      }
      i.files.set(fp, { mode: req.headers.get("x-incus-mode") ?? "0644", data: bodyText });
      return sync({});
    }
    return incusError(405, "Method not allowed");
  }

  function listInstances(url: URL, project: string): Response {
    const filter = url.searchParams.get("filter");
    const recursion = url.searchParams.get("recursion") ?? "0";
    let list = [...instances.values()].filter((i) => i.project === project);
    if (filter) {
      try {
        list = list.filter((i) => {
          const b = instanceBody(i, false);
          return matchesFilter(
            filter,
            (f) =>
              f.startsWith("config.")
                ? b.expanded_config[f.slice(7)]
                : String((b as Record<string, unknown>)[f] ?? ""),
          );
        });
      } catch (err) {
        return incusError(400, (err as Error).message);
      }
    }
    if (recursion === "0") return sync(list.map((i) => `/1.0/instances/${i.name}`));
    return sync(list.map((i) => instanceBody(i, recursion === "2")));
  }

  function createInstance(body: Record<string, unknown>, project: string): Response {
    const name = String(body.name ?? "");
    if (!NAME.test(name)) return incusError(400, "Invalid instance name");
    const type = (body.type ?? "container") as FakeInstance["type"];
    const source = (body.source ?? {}) as Record<string, string>;
    const op = ops.start(
      "Creating instance",
      { instances: [`/1.0/instances/${name}`] },
      opMs,
      () => {
        if (faults.failNextCreate) {
          const e = faults.failNextCreate;
          faults.failNextCreate = "";
          throw new Error(e);
        }
        if (instances.has(key(project, name))) {
          throw new Error("UNIQUE constraint failed: instances.project_id, instances.name");
        }
        const img = source.alias !== undefined
          ? images.get(source.alias)
          : [...images.values()].find((i) => i.fingerprint === source.fingerprint);
        if (!img) throw new Error("Image not provided for instance creation");
        if (img.type !== type) {
          throw new Error(
            `Requested image's type "${img.type}" doesn't match instance type "${type}"`,
          );
        }
        const inst: FakeInstance = {
          name,
          project,
          type,
          config: Object.fromEntries(
            Object.entries((body.config ?? {}) as Record<string, unknown>).map((
              [k, v],
            ) => [k, String(v)]),
          ),
          devices: (body.devices ?? {}) as FakeInstance["devices"],
          profiles: (body.profiles as string[] | undefined) ?? ["default"],
          status: "Stopped",
          agent: false,
          console: "",
          files: new Map(),
          created_at: new Date().toISOString(),
        };
        instances.set(key(project, name), inst);
        api.peak = Math.max(api.peak, instances.size);
        if (body.start === true) {
          inst.status = "Running";
          boot(inst);
        }
      },
    );
    return asyncResponse(op);
  }

  const server = Deno.serve(
    { path, onListen() {} },
    (req) => handle(req).catch((err) => incusError(500, String(err))),
  );

  const api = {
    path,
    instances,
    projects,
    profiles,
    images,
    operations: ops,
    seen,
    faults,
    /** Most instances that existed at once. */
    peak: 0,
    /** The guest powered off (its ephemeral runner finished); the console keeps its log. */
    powerOff(name: string, project = "default") {
      const i = instances.get(key(project, name));
      if (!i || i.status === "Stopped") return;
      i.console += "reboot: Power down\r\n";
      i.status = "Stopped";
      i.agent = false;
    },
    /** Adds an instance as if created earlier (orphans, restarts). */
    addInstance(i: Partial<FakeInstance> & { name: string }) {
      const inst: FakeInstance = {
        project: "default",
        type: "virtual-machine",
        config: {},
        devices: {},
        profiles: ["default"],
        status: "Running",
        agent: true,
        console: "",
        files: new Map(),
        created_at: new Date().toISOString(),
        ...i,
      };
      instances.set(key(inst.project, inst.name), inst);
      return inst;
    },
    count: (method: string, pattern: RegExp) =>
      seen.filter((r) => r.method === method && pattern.test(r.path)).length,
    async close() {
      ops.close();
      await server.shutdown();
      await Deno.remove(path).catch(() => {});
    },
  };
  return api;
}
