/**
 * Test support: runner-ctl as a real process (`deno run services/runner-ctl/main.ts`) against
 * the linked fakes, with its JSON log lines collected.
 *
 * @module
 */
import { type Simulation, type SimulationOptions, startSimulation } from "../fakes/simulation.ts";
import { waitUntil } from "@svc/shared/testing";

const MAIN = new URL("../../services/runner-ctl/main.ts", import.meta.url).pathname;

/** A running controller process. */
export interface ControllerProcess {
  lines: Record<string, unknown>[];
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(signal?: Deno.Signal): Promise<number>;
  exited: Promise<number>;
}

/** Starts runner-ctl with `args` and the simulation's environment. */
export function startController(
  sim: Simulation,
  o: { args?: string[]; env?: Record<string, string> } = {},
): ControllerProcess {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...(o.args ?? [])],
    env: sim.env(o.env),
    clearEnv: true,
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
