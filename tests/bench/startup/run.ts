// deno-lint-ignore-file no-console -- a command-line tool talks to its user on the console
/**
 * Start-up benchmark: each service, with its defaults and the permission flags of
 * `deploy/services.ts`, from process spawn to its first answered request, against a bare
 * `Deno.serve` (the floor) and, for mock-oidc, the npm package `oauth2-mock-server` on node (the
 * peer), in the same run. Rounds alternate the targets (one spawn of each per round, after one
 * discarded warm-up round that fills the module caches); the figure is the median.
 *
 * What "first answered request" is per target:
 * - HTTP services: the first response (any status) to a `GET` of a cheap route, polled every 2 ms
 *   from this process (mock-oidc `/default/jwks` as the peer's `/jwks`; the others `/healthz`);
 * - runner-ctl (no listener of its own): the first request it sends, its Incus preflight, arriving
 *   at a Unix socket this process serves.
 *
 * Like for like: every target, the bare server included, is spawned the same way, `deno run` from
 * the repository root, so each pays the same for reading the workspace's `deno.json`, its
 * lockfile and `node_modules` (the bare server ≈ 15 ms CPU more than outside the workspace; its
 * remaining ≈ 100 ms CPU on this machine is Deno's own runtime start). The shipped form is a
 * `deno compile` binary, which cannot be built here (no `denort`); `deno run` with the service's
 * permission and V8 flags from `deploy/services.ts` stands in for it. Not the compile task's
 * `--node-modules-dir=none`: under `deno run` that serves npm packages from the global cache,
 * outside todo-api's read grant (PGlite reads its data files), where a binary embeds them. A
 * binary skips the config and lockfile discovery, the module graph's resolution and the reading
 * and transpiling of each module file (≈ 0.7 ms CPU per local module here), so its starts are
 * shorter than these, the more so the more modules a service loads.
 *
 * Two figures per start: the wall time, and the CPU time the process has used by its first answer
 * (all its threads, from `/proc`). On the shared 2-core machine the wall time mostly measures the
 * queue for the cores; the CPU time and its ratio to the bare server's hardly move with the load.
 *
 * Settings given beyond the defaults are only those a service cannot start without (image-proxy's
 * bucket, mcp-server's issuer, runner-ctl's GitHub and Incus names) and a free port. todo-api runs
 * on its default embedded PGlite (migrated once before the rounds), and on Postgres as well when
 * `TEST_DATABASE_URL` is set.
 *
 * Usage: deno run -A tests/bench/startup/run.ts [--rounds 7] [--write] [--label NAME]
 *        [--baseline DIR] [--only NAME]
 * `--only NAME` measures only the services whose label starts with NAME (the bare server and the
 * peer always run, as the baselines of the ratios).
 * `--baseline DIR` also runs every service from the checkout in DIR (e.g. `git worktree add` or
 * `git archive` of the commit before a change, with `node_modules` linked), each right before
 * the current one, so before/after figures come from the same run.
 * `--write` replaces the `### <label>` part of the `## Start-up` section of tests/bench/RESULTS.md.
 *
 * @module
 */
import { parseArgs } from "node:util";

const { values: opts } = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "7" },
    write: { type: "boolean", default: false },
    label: { type: "string", default: "after" },
    only: { type: "string", default: "" },
    baseline: { type: "string", default: "" },
  },
});

// image-proxy's deployed net grant names AWS and 0.0.0.0:8080; IMGPROXY_ALLOW_NET narrows it to
// loopback at any port, as `deploy/services.ts` documents for another listen address.
Deno.env.set("IMGPROXY_ALLOW_NET", "127.0.0.1");
const { SERVICES } = await import("../../../deploy/services.ts");

const ROOT = new URL("../../../", import.meta.url).pathname;
const PEER_VERSION = "9.3.0";
const ROUNDS = Number(opts.rounds);
const RESULTS = new URL("../RESULTS.md", import.meta.url).pathname;
const TMP = await Deno.makeTempDir({ prefix: "startup-bench-" });

interface Target {
  name: string;
  /** The command for one start on `port`. */
  command(port: number): { cmd: string; args: string[]; env?: Record<string, string> };
  /** How the first answer is recognized: an HTTP path to poll, or a Unix socket to serve. */
  probe: { path: string } | { socket: string };
  /** Which baseline it is compared with. */
  kind: "floor" | "peer" | "service";
  /** Working directory: the repository root, or the `--baseline` tree. @default {ROOT} */
  cwd?: string;
}

function deployed(name: string): string[] {
  const s = SERVICES.find((x) => x.name === name)!;
  return [...s.permissions, ...(s.v8Flags?.length ? [`--v8-flags=${s.v8Flags.join(",")}`] : [])];
}

function service(
  name: string,
  label: string,
  args: (port: number) => string[],
  probe: Target["probe"] = { path: "/healthz" },
  env?: Record<string, string>,
): Target {
  const entry = SERVICES.find((x) => x.name === name)!.entry;
  return {
    name: label,
    kind: "service",
    probe,
    command: (port) => ({
      cmd: Deno.execPath(),
      args: ["run", ...deployed(name), entry, ...args(port)],
      env,
    }),
  };
}

/**
 * The same target run from another checkout (`--baseline DIR`, e.g. the code before a change,
 * with `node_modules` linked in), so before and after alternate within one run.
 */
function fromTree(target: Target, dir: string, label: string): Target {
  return { ...target, name: `${target.name} (${label})`, cwd: dir };
}

const RUNNER_SOCKET = `${TMP}/incus.socket`;

function targets(peerBin: string): Target[] {
  const list: Target[] = [
    {
      name: "bare Deno.serve",
      kind: "floor",
      probe: { path: "/" },
      command: (port) => ({
        cmd: Deno.execPath(),
        args: ["run", "--allow-net", `${ROOT}tests/bench/startup/bare_server.ts`, String(port)],
      }),
    },
    service(
      "mock-oidc",
      "mock-oidc",
      (port) => ["--addr", `127.0.0.1:${port}`, "--metrics-addr="],
      { path: "/default/jwks" },
    ),
    {
      name: `oauth2-mock-server ${PEER_VERSION} (node)`,
      kind: "peer",
      probe: { path: "/jwks" },
      command: (port) => ({ cmd: "node", args: [peerBin, "-a", "127.0.0.1", "-p", String(port)] }),
    },
    service("todo-api", "todo-api (PGlite)", (port) => [
      "serve",
      "--addr",
      `127.0.0.1:${port}`,
      "--metrics-addr",
      `127.0.0.1:${freePort()}`,
    ]),
  ];
  const pg = Deno.env.get("TEST_DATABASE_URL");
  if (pg) {
    list.push(service("todo-api", "todo-api (Postgres)", (port) => [
      "serve",
      "--database-url",
      pg,
      "--addr",
      `127.0.0.1:${port}`,
      "--metrics-addr",
      `127.0.0.1:${freePort()}`,
    ]));
  }
  list.push(
    service(
      "image-proxy",
      "image-proxy",
      (port) => [
        "--bucket",
        "mirror",
        "--region",
        "us-east-1",
        "--s3.endpoint",
        "http://127.0.0.1:9",
        "--listen",
        `127.0.0.1:${port}`,
      ],
      { path: "/healthz" },
      { AWS_ACCESS_KEY_ID: "bench", AWS_SECRET_ACCESS_KEY: "bench" },
    ),
    service("mcp-server", "mcp-server", (port) => [
      "--transport",
      "http",
      "--addr",
      `127.0.0.1:${port}`,
      "--issuer",
      "http://127.0.0.1:9/default",
    ]),
    // Settings from the environment: a YAML file would need `LOG_TOKENS,LOG_STREAM`, which its
    // deployed grant lacks (the `yaml` package reads them while parsing).
    service("runner-ctl", "runner-ctl", () => [], { socket: RUNNER_SOCKET }, {
      RUNNER_CTL_GITHUB_TOKEN: "bench",
      RUNNER_CTL_GITHUB_CONFIG_URL: "https://github.com/bench/bench",
      RUNNER_CTL_GITHUB_SCALE_SET: "bench",
      RUNNER_CTL_INCUS_SOCKET: RUNNER_SOCKET,
      RUNNER_CTL_INCUS_PROJECT: "default",
      RUNNER_CTL_INCUS_IMAGE: "bench",
      RUNNER_CTL_INCUS_OWNER: "bench",
    }),
  );
  const chosen = list.filter((t) =>
    !opts.only || t.name.startsWith(opts.only) || t.kind !== "service"
  );
  if (!opts.baseline) return chosen;
  // Each service right after its baseline run, so both meet the same moment of load.
  return chosen.flatMap((t) =>
    t.kind === "service" ? [fromTree(t, opts.baseline, "baseline"), t] : [t]
  );
}

async function ensurePeer(): Promise<string> {
  const dir = Deno.env.get("MOCK_OIDC_PEER_DIR") ??
    `${Deno.env.get("TMPDIR") ?? "/tmp"}/mock-oidc-bench-peer`;
  const bin = `${dir}/node_modules/oauth2-mock-server/dist/oauth2-mock-server.mjs`;
  const installed = await Deno.readTextFile(`${dir}/node_modules/oauth2-mock-server/package.json`)
    .then((text) => JSON.parse(text).version, () => undefined);
  if (installed !== PEER_VERSION) {
    await Deno.mkdir(dir, { recursive: true });
    const out = await new Deno.Command("npm", {
      args: [
        "install",
        "--no-save",
        "--no-audit",
        "--no-fund",
        "--prefix",
        dir,
        `oauth2-mock-server@${PEER_VERSION}`,
      ],
      stdout: "null",
      stderr: "inherit",
    }).output();
    if (!out.success) throw new Error("Cannot install oauth2-mock-server with npm");
  }
  return bin;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** The Unix socket runner-ctl's preflight reaches: notes the first request's arrival. */
function incusSocket(): { arrived: () => Promise<number>; close: () => Promise<void> } {
  let resolve: ((t: number) => void) | undefined;
  const server = Deno.serve({ path: RUNNER_SOCKET, onListen: () => {} }, () => {
    resolve?.(performance.now());
    resolve = undefined;
    return Response.json({ type: "error", error: "bench", error_code: 503 }, { status: 503 });
  });
  return {
    arrived: () => new Promise<number>((r) => resolve = r),
    close: () => server.shutdown(),
  };
}

/**
 * CPU time the process has used so far, ms: the sum over its live threads of the time each ran on
 * a CPU (Linux `/proc/<pid>/task/<tid>/schedstat`, ns). Unlike the wall time it hardly depends on
 * how many other processes wait for the two cores; NaN where `/proc` is missing.
 */
function cpuTime(pid: number): number {
  let ns = 0;
  try {
    for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(
          Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/schedstat`).split(" ")[0],
        );
      } catch { /* the thread ended meanwhile */ }
    }
  } catch {
    return NaN;
  }
  return ns / 1e6;
}

/** One start: milliseconds from spawn to the first answered request, and CPU ms used by then. */
interface Sample {
  wall: number;
  cpu: number;
}

/** Measures one start of `target`. */
async function startTime(target: Target, incus: ReturnType<typeof incusSocket>): Promise<Sample> {
  const port = freePort();
  const { cmd, args, env } = target.command(port);
  const arrival = "socket" in target.probe ? incus.arrived() : undefined;
  const started = performance.now();
  const child = new Deno.Command(cmd, {
    args,
    env,
    cwd: target.cwd ?? ROOT,
    stdout: "null",
    stderr: "null",
  })
    .spawn();
  try {
    if (arrival) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${target.name} did not start`)), 60_000);
      });
      try {
        const wall = (await Promise.race([arrival, timeout])) - started;
        return { wall, cpu: cpuTime(child.pid) };
      } finally {
        clearTimeout(timer);
      }
    }
    const url = `http://127.0.0.1:${port}${(target.probe as { path: string }).path}`;
    for (;;) {
      try {
        const res = await fetch(url);
        await res.body?.cancel();
        const wall = performance.now() - started;
        return { wall, cpu: cpuTime(child.pid) };
      } catch { /* not listening yet */ }
      // Polling interval of the probe, not a wait for time to pass: the next connection attempt.
      await new Promise((r) => setTimeout(r, 2));
      if (performance.now() - started > 60_000) throw new Error(`${target.name} did not start`);
    }
  } finally {
    // A graceful stop, so every start is a clean one (a killed PGlite recovers its WAL on the
    // next start, which then measures recovery, not start-up); SIGKILL only if it hangs.
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
    const hung = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch { /* gone meanwhile */ }
    }, 30_000);
    await child.status;
    clearTimeout(hung);
  }
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function prepare(list: Target[]): Promise<void> {
  // todo-api's embedded default needs its schema: `migrate up` once, as `deno task dev` does.
  if (!list.some((t) => t.name.startsWith("todo-api"))) return; // not measured (`--only`)
  for (const cwd of opts.baseline ? [ROOT, opts.baseline] : [ROOT]) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...deployed("todo-api"), "services/todo-api/main.ts", "migrate", "up"],
      cwd,
      stdout: "null",
      stderr: "inherit",
    }).output();
    if (!out.success) throw new Error(`Cannot migrate todo-api's embedded database in ${cwd}`);
  }
}

async function nodeVersion(): Promise<string> {
  const out = await new Deno.Command("node", { args: ["--version"], stdout: "piped" }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

async function writeSection(label: string, text: string): Promise<void> {
  const all = await Deno.readTextFile(RESULTS);
  const heading = "## Start-up (process start to first answered request)";
  const intro =
    "Measured by `deno run -A tests/bench/startup/run.ts` (see its header). Goal: every " +
    "service within 2× the bare `Deno.serve`; mock-oidc ≤ 0.2× `oauth2-mock-server`.";
  let section = all.includes(heading)
    ? all.slice(all.indexOf(heading))
    : `${heading}\n\n${intro}\n`;
  const rest = all.includes(heading) ? "" : "";
  const next = section.indexOf("\n## ", 1);
  const tail = next >= 0 ? section.slice(next) : "";
  section = next >= 0 ? section.slice(0, next) : section;
  const sub = `### ${label}`;
  const at = section.indexOf(sub);
  const block = `${sub}\n\n${text}\n`;
  if (at >= 0) {
    const end = section.indexOf("\n### ", at + 1);
    section = section.slice(0, at) + block + (end >= 0 ? section.slice(end + 1) : "");
  } else {
    section = section.trimEnd() + "\n\n" + block;
  }
  const head = all.includes(heading) ? all.slice(0, all.indexOf(heading)) : all.trimEnd() + "\n\n";
  await Deno.writeTextFile(RESULTS, head + section.trimEnd() + "\n" + tail + rest);
}

async function run(): Promise<void> {
  const list = targets(await ensurePeer());
  await prepare(list);
  const incus = incusSocket();
  const samples = new Map<string, Sample[]>(list.map((t) => [t.name, []]));
  try {
    for (const t of list) await startTime(t, incus); // warm-up: module caches, discarded
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate the order every round so no target always follows the same one.
      const order = round % 2 ? [...list].reverse() : list;
      for (const t of order) samples.get(t.name)!.push(await startTime(t, incus));
    }
  } finally {
    await incus.close();
  }
  const wall = (name: string) => samples.get(name)!.map((x) => x.wall);
  const cpu = (name: string) => samples.get(name)!.map((x) => x.cpu);
  const floor = median(wall(list[0].name));
  const floorCpu = median(cpu(list[0].name));
  const peerName = list.find((t) => t.kind === "peer")!.name;
  const peer = median(wall(peerName));
  const peerCpu = median(cpu(peerName));
  const load = Deno.loadavg().map((v) => v.toFixed(1)).join(" ");
  const lines = [
    `Run ${new Date().toISOString().slice(0, 16)}Z, ${ROUNDS} alternating rounds after one ` +
    `warm-up, medians; Deno ${Deno.version.deno}, node ${await nodeVersion()}. Load average at ` +
    `the end: ${load}.`,
    "",
    "| target | median start | rounds (ms) | vs bare | vs peer | CPU by then | CPU vs bare | " +
    "CPU vs peer |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...list.map((t) => {
      const m = median(wall(t.name));
      const c = median(cpu(t.name));
      return `| ${t.name} | ${m.toFixed(0)} ms | ${
        wall(t.name).map((x) => x.toFixed(0)).join(", ")
      } | ${(m / floor).toFixed(2)}× | ${(m / peer).toFixed(2)}× | ${c.toFixed(0)} ms | ` +
        `${(c / floorCpu).toFixed(2)}× | ${(c / peerCpu).toFixed(2)}× |`;
    }),
  ];
  const text = lines.join("\n");
  console.log(text);
  if (opts.write) await writeSection(opts.label, text);
}

try {
  await run();
} finally {
  await Deno.remove(TMP, { recursive: true });
}
