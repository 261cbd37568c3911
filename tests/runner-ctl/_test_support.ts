/**
 * Test support: runner-ctl as a real process against the linked fakes, started as shipped (`deno
 * run` with exactly the permission and V8 flags of `deploy/services.ts`, from the repository
 * root), with its JSON log lines collected; or its controller in process on an injected clock
 * (scenarios that test time bounds to the millisecond).
 *
 * @module
 */
import { createLogger } from "@svc/shared/log";
import { type Simulation, type SimulationOptions, startSimulation } from "../fakes/simulation.ts";
import { Controller } from "../../services/runner-ctl/controller/controller.ts";
import { ActionsClient } from "../../services/runner-ctl/github/actions.ts";
import { ActionsAuth } from "../../services/runner-ctl/github/auth.ts";
import { parseConfigUrl } from "../../services/runner-ctl/github/config_url.ts";
import type { HttpDeps, RetryPolicy } from "../../services/runner-ctl/github/http.ts";
import { ensureScaleSet } from "../../services/runner-ctl/github/scale_set.ts";
import { InstanceClient } from "../../services/runner-ctl/incus/instances.ts";
import { ImageSource } from "../../services/runner-ctl/incus/image_source.ts";
import { preflight } from "../../services/runner-ctl/incus/preflight.ts";
import { IncusTransport } from "../../services/runner-ctl/incus/transport.ts";
import { waitUntil } from "@svc/testing";
import { ROOT, shippedForm } from "../_shipped.ts";

/** runner-ctl's entry and flags as `deploy/services.ts` ships them (read once per file). */
const SHIPPED = await shippedForm("runner-ctl");

/** A running controller process. */
export interface ControllerProcess {
  lines: Record<string, unknown>[];
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(signal?: Deno.Signal): Promise<number>;
  exited: Promise<number>;
}

/**
 * Starts runner-ctl as shipped with `args` and the simulation's environment (nothing of the test
 * runner's; `DENO_CERT` makes the runtime trust the fake GitHub's CA, which needs no grant).
 */
export function startController(
  sim: Simulation,
  o: { args?: string[]; env?: Record<string, string> } = {},
): ControllerProcess {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...SHIPPED.flags, SHIPPED.entry, ...(o.args ?? [])],
    env: sim.env(o.env),
    clearEnv: true,
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: Record<string, unknown>[] = [];
  let err = "";
  const read = async () => {
    let pending = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      const parts = (pending + chunk).split("\n");
      pending = parts.pop() ?? "";
      for (const p of parts) {
        if (p.trim() === "") continue;
        try {
          lines.push(JSON.parse(p));
        } catch {
          lines.push({ msg: "NOT JSON", raw: p });
        }
      }
    }
  };
  const readErr = async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) err += chunk;
  };
  const pumps = Promise.all([read(), readErr()]);
  const exited = child.status.then(async (s) => {
    await pumps;
    return s.code;
  });
  return {
    lines,
    stderr: () => err,
    exited,
    async stop(signal: Deno.Signal = "SIGTERM") {
      try {
        child.kill(signal);
      } catch { /* already gone */ }
      return await exited;
    },
  };
}

/** Polls `cond` until it holds (generous: the machine is shared). */
export function waitFor(what: string, cond: () => boolean, timeoutMs = 60_000): Promise<void> {
  return waitUntil(cond, { what, timeoutMs, intervalMs: 25 });
}

/** Runs `body` with a simulation that is always closed. */
export async function withSimulation(
  o: SimulationOptions,
  body: (sim: Simulation) => Promise<void>,
): Promise<void> {
  const sim = await startSimulation(o);
  try {
    await body(sim);
  } finally {
    await sim.close();
  }
}

/** A controller built in this process against the simulation, on a clock the test moves. */
export interface ClockedController {
  ctl: Controller;
  /** JSON log records, in order. */
  lines: Record<string, unknown>[];
  /** The current time of the injected clock (ms). */
  now(): number;
  /** Sets the clock to `t` and runs one reconcile pass to its end (spawns and removals too). */
  at(t: number): Promise<void>;
  /** Instance creates the fake Incus has seen. */
  creates(): number;
  close(): void;
}

/**
 * Builds the controller in process (the real GitHub and Incus clients over the fakes), with an
 * injected clock that only the test moves, so backoff bounds are tested to the millisecond.
 */
export async function clockedController(sim: Simulation, o: {
  minRunners?: number;
  maxRunners?: number;
  bootstrapTimeoutMs: number;
  retry: RetryPolicy;
  jitter?: () => number;
  diagnosticsDir?: string;
  /** `incus.image`. @default {"runner"} */
  image?: string;
  /** `incus.image_refresh_interval` (ms); without it the image is never checked again. */
  imageRefreshMs?: number;
  /** `incus.owner`. @default {"sim-host"} */
  owner?: string;
  /** `github.scale_set`. @default {sim.scaleSet} */
  scaleSet?: string;
}): Promise<ClockedController> {
  const scaleSet = o.scaleSet ?? sim.scaleSet;
  const client = Deno.createHttpClient({ caCerts: [sim.github.caCert] });
  const http: HttpDeps = {
    fetch: (input, init) => fetch(input, { ...init, client }),
    userAgent: "runner-ctl-test",
    retry: { initialMs: 1, maximumMs: 5 },
    sleep: () => Promise.resolve(),
  };
  const actions = new ActionsClient(
    new ActionsAuth({
      configUrl: parseConfigUrl(sim.github.configUrl),
      credentials: { kind: "token", token: sim.env().RUNNER_CTL_GITHUB_TOKEN },
      http,
    }),
    http,
  );
  const { set } = await ensureScaleSet(actions, { name: scaleSet, runnerGroup: "default" });
  const transport = new IncusTransport({ socket: sim.incus.path, project: "default" });
  const instances = new InstanceClient({ transport, operationTimeoutMs: 10_000, concurrency: 2 });
  const template = await preflight(transport, {
    image: o.image ?? "runner",
    profiles: [],
    type: "virtual-machine",
  });
  let clock = 1_000_000;
  const image = o.imageRefreshMs === undefined ? undefined : new ImageSource({
    transport,
    configured: o.image ?? "runner",
    initial: template,
    type: template.type,
    intervalMs: o.imageRefreshMs,
    now: () => clock,
  });
  const lines: Record<string, unknown>[] = [];
  const ctl = new Controller({
    actions,
    instances,
    template,
    image,
    logger: createLogger({ write: (l) => lines.push(JSON.parse(l)), now: () => clock }),
    scaleSet,
    owner: o.owner ?? "sim-host",
    minRunners: o.minRunners ?? 1,
    maxRunners: o.maxRunners ?? 1,
    bootstrapTimeoutMs: o.bootstrapTimeoutMs,
    diagnosticsDir: o.diagnosticsDir ?? "",
    reconcileIntervalMs: 1000,
    retry: o.retry,
    jitter: o.jitter,
    now: () => clock,
  });
  ctl.onScaleSet(set);
  return {
    ctl,
    lines,
    now: () => clock,
    async at(t: number) {
      clock = t;
      await ctl.reconcile();
      await ctl.settled();
    },
    creates: () => sim.incus.count("POST", /^\/1\.0\/instances$/),
    close() {
      transport.close();
      client.close();
    },
  };
}
