/**
 * A fake world for runner-ctl: the fake GitHub + Actions service and the fake Incus daemon,
 * wired like the real thing: a started VM's guest reads its JIT config and connects its runner
 * to the fake service; when the runner's job completes, the guest powers off. Tests, the
 * benchmark and `deno task dev` drive a job stream into it.
 *
 * @module
 */
import { type FakeGithubOptions, startFakeGithub } from "./github/fake_github.ts";
import { type FakeIncusOptions, startFakeIncus } from "./incus/fake_incus.ts";

/** Options of {@linkcode startSimulation}. */
export interface SimulationOptions {
  github?: FakeGithubOptions;
  incus?: FakeIncusOptions;
  /** The scale set name the controller uses. @default {"linux-x64"} */
  scaleSet?: string;
  /** The PAT the controller authenticates with. */
  token?: string;
}

/** Handle of a running simulation. */
export type Simulation = Awaited<ReturnType<typeof startSimulation>>;

/** Starts both fakes, linked. */
export async function startSimulation(o: SimulationOptions = {}) {
  const token = o.token ?? "ghp_simulation_token";
  const dir = await Deno.makeTempDir({ prefix: "runner-ctl-sim-" });
  const ref: { incus?: Awaited<ReturnType<typeof startFakeIncus>> } = {};
  const github = await startFakeGithub({
    target: "org/repo",
    pats: [token],
    longPollMs: 2000,
    ...o.github,
    onRunnerDone: (name) => {
      ref.incus?.powerOff(name);
      o.github?.onRunnerDone?.(name);
    },
  });
  const incus = ref.incus = await startFakeIncus({
    path: `${dir}/unix.socket`,
    ...o.incus,
    onGuestBoot: (inst, jit) => {
      if (o.incus?.onGuestBoot && !o.incus.onGuestBoot(inst, jit)) return false;
      return github.runnerConnect(jit) !== undefined;
    },
  });
  const caFile = `${dir}/ca.pem`;
  await Deno.writeTextFile(caFile, github.caCert);
  const scaleSet = o.scaleSet ?? "linux-x64";
  return {
    github,
    incus: incus,
    dir,
    caFile,
    scaleSet,
    /** Environment for a controller process pointed at the fakes. */
    env(extra: Record<string, string> = {}): Record<string, string> {
      return {
        DENO_CERT: caFile,
        RUNNER_CTL_GITHUB_CONFIG_URL: github.configUrl,
        RUNNER_CTL_GITHUB_SCALE_SET: scaleSet,
        RUNNER_CTL_GITHUB_TOKEN: token,
        RUNNER_CTL_INCUS_SOCKET: incus.path,
        RUNNER_CTL_INCUS_PROJECT: "default",
        RUNNER_CTL_INCUS_IMAGE: "runner",
        RUNNER_CTL_INCUS_OWNER: "sim-host",
        RUNNER_CTL_RECONCILE_INTERVAL: "200ms",
        RUNNER_CTL_RETRY_INITIAL: "100ms",
        RUNNER_CTL_RETRY_MAXIMUM: "1s",
        ...extra,
      };
    },
    /** Instances the controller owns right now. */
    owned() {
      return [...incus.instances.values()].filter((i) =>
        i.config["user.runner-ctl-owner"] === "sim-host"
      );
    },
    async close() {
      await github.close();
      await incus.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}
