/**
 * mock-oidc protocol benchmark against the npm package `oauth2-mock-server` (the peer), measured
 * in the same run on the same machine (run on demand, never by `deno test`):
 *  1. start: process spawn until the first successful JWKS response (median of several starts);
 *  2. `client_credentials` tokens per second at RS256 with a fixed number of concurrent
 *     connections, driven by wrk from a second process, rounds interleaved ours/peer;
 *  3. the same with a DPoP proof on each request (RFC 9449: a DPoP-bound token), against the
 *     default mock-oidc: wrk sends proofs signed beforehand in this process, a fresh batch per
 *     round (each `jti` once, `iat` within the proof window).
 *
 * The peer runs under the machine's `node` and is installed once with npm into a cache
 * directory (`MOCK_OIDC_PEER_DIR`, default `$TMPDIR/mock-oidc-bench-peer`), pinned to
 * PEER_VERSION. Needs `node`, `npm` and `wrk` (Debian package `wrk`).
 *
 * Usage: deno run -A tests/bench/mock_oidc/run.ts [--write] [--seconds 4] [--rounds 5]
 *        [--connections 16] [--starts 7] [--before <git ref or directory>]
 * `--before` adds the default mock-oidc of another tree as a row of the same run: tokens/s before
 * and after a change. A directory (another checkout, e.g. `git worktree add --detach DIR REF`
 * then `deno install --frozen` there) runs in place with its own node_modules; a git ref is
 * extracted with `git archive` into `$TMPDIR/mock-oidc-bench-before-<commit>`, sharing this
 * tree's node_modules, and runs from the benchmark's working directory: Deno takes the workspace
 * from there, so from this tree its `@svc/*` imports (the kit) resolve to this tree's (`deno info`
 * shows it). A ref thus measures the service's own code before; for a kit change, give a
 * directory. With `--before`, the log also gives the median of the per-round after/before ratios
 * of the default row; `--before-only` measures just those two rows (no start times, no other
 * rows, no peer). Rounds visit the rows in alternating order (forwards, then backwards).
 * `--write` replaces the `## mock-oidc` section of tests/bench/RESULTS.md.
 */
import { parseArgs } from "node:util";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { SERVICES } from "../../../deploy/services.ts";

const PEER_VERSION = "9.3.0";
const MAIN = new URL("../../../services/mock-oidc/main.ts", import.meta.url).pathname;
const RESULTS = new URL("../RESULTS.md", import.meta.url).pathname;
/** mock-oidc runs with the permissions it is deployed with (plus `--allow-ffi` for OpenSSL). */
const OURS_PERMISSIONS = SERVICES.find((s) => s.name === "mock-oidc")!.permissions;
const LUA = `wrk.method = "POST"
wrk.body = "grant_type=client_credentials&scope=api"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Authorization"] = "Basic YmVuY2g6c2VjcmV0"
`;

/** Proofs signed per round of the DPoP row: more than wrk sends in `--seconds` at this speed. */
const DPOP_PROOFS_PER_SECOND = 2_500;

/** wrk script of the DPoP row: each request takes the next proof of `proofs.txt`, once. */
const DPOP_LUA = `${LUA}
local proofs = {}
local next_proof = 1
init = function(args)
  for line in io.lines(args[1]) do proofs[#proofs + 1] = line end
end
request = function()
  local proof = proofs[next_proof]
  next_proof = next_proof + 1
  if next_proof > #proofs then next_proof = 1 end
  wrk.headers["DPoP"] = proof
  return wrk.format()
end
`;

interface Target {
  /** Each request carries a DPoP proof (the DPoP-bound row). */
  dpop?: boolean;
  name: string;
  command: (
    port: number,
  ) => { cmd: string; args: string[]; env?: Record<string, string>; cwd?: string };
  jwksPath: string;
  tokenPath: string;
}

const { values: opts } = parseArgs({
  args: Deno.args,
  options: {
    write: { type: "boolean", default: false },
    seconds: { type: "string", default: "4" },
    rounds: { type: "string", default: "5" },
    connections: { type: "string", default: "16" },
    starts: { type: "string", default: "7" },
    before: { type: "string" },
    "before-only": { type: "boolean", default: false },
  },
});

function ours(
  label: string,
  extraArgs: string[] = [],
  extraPermissions: string[] = [],
  main = MAIN,
  cwd?: string,
): Target {
  return {
    name: `mock-oidc (${label})`,
    command: (port) => ({
      cwd,
      cmd: Deno.execPath(),
      args: [
        "run",
        ...OURS_PERMISSIONS,
        ...extraPermissions,
        main,
        "--addr",
        `127.0.0.1:${port}`,
        "--metrics-addr=",
        ...extraArgs,
      ],
    }),
    jwksPath: "/default/jwks",
    tokenPath: "/default/token",
  };
}

const ROOT = new URL("../../../", import.meta.url).pathname;

async function git(...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args, cwd: ROOT, stdout: "piped" }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")} failed`);
  return new TextDecoder().decode(out.stdout).trim();
}

/**
 * The default mock-oidc of `ref`: a directory holding another checkout (a worktree with its own
 * `node_modules`), run in place; otherwise a commit, extracted once into a cache directory.
 */
async function before(ref: string): Promise<Target> {
  const inPlace = `${ref.replace(/\/+$/, "")}/services/mock-oidc/main.ts`;
  if (await Deno.stat(inPlace).then((s) => s.isFile, () => false)) {
    const head = await new Deno.Command("git", {
      args: ["rev-parse", "--short", "HEAD"],
      cwd: ref,
      stdout: "piped",
    }).output();
    const label = head.success ? new TextDecoder().decode(head.stdout).trim() : ref;
    // Run from that tree, so that its deno.json, lock and node_modules are the ones used.
    return ours(`default, before: ${label}`, [], [], inPlace, ref);
  }
  const commit = await git("rev-parse", "--short", `${ref}^{commit}`);
  const dir = `${Deno.env.get("TMPDIR") ?? "/tmp"}/mock-oidc-bench-before-${commit}`;
  const main = `${dir}/services/mock-oidc/main.ts`;
  if (!await Deno.stat(main).then(() => true, () => false)) {
    await Deno.mkdir(dir, { recursive: true });
    const archive = new Deno.Command("sh", {
      args: ["-c", `git archive ${commit} | tar -x -C "${dir}"`],
      cwd: ROOT,
    });
    if (!(await archive.output()).success) throw new Error(`cannot extract ${commit}`);
    await Deno.symlink(`${ROOT}node_modules`, `${dir}/node_modules`);
  }
  return ours(`default, before: ${commit}`, [], [], main);
}

function peer(bin: string): Target {
  return {
    name: `oauth2-mock-server ${PEER_VERSION}`,
    command: (port) => ({ cmd: "node", args: [bin, "-a", "127.0.0.1", "-p", String(port)] }),
    jwksPath: "/jwks",
    tokenPath: "/token",
  };
}

async function ensurePeer(): Promise<string> {
  const dir = Deno.env.get("MOCK_OIDC_PEER_DIR") ??
    `${Deno.env.get("TMPDIR") ?? "/tmp"}/mock-oidc-bench-peer`;
  const bin = `${dir}/node_modules/oauth2-mock-server/dist/oauth2-mock-server.mjs`;
  const installed = await Deno.readTextFile(
    `${dir}/node_modules/oauth2-mock-server/package.json`,
  ).then((text) => JSON.parse(text).version, () => undefined);
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

function spawn(target: Target, port: number): Deno.ChildProcess {
  const { cmd, args, env, cwd } = target.command(port);
  return new Deno.Command(cmd, { args, env, cwd, stdout: "null", stderr: "null" }).spawn();
}

async function stop(child: Deno.ChildProcess): Promise<void> {
  try {
    child.kill("SIGTERM");
  } catch { /* already gone */ }
  await child.status;
}

/** Milliseconds from spawn to the first 200 from the JWKS endpoint. */
async function startTime(target: Target): Promise<number> {
  const port = freePort();
  const started = performance.now();
  const child = spawn(target, port);
  try {
    for (;;) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}${target.jwksPath}`);
        await res.body?.cancel();
        if (res.status === 200) return performance.now() - started;
      } catch { /* not listening yet */ }
      await new Promise((resolve) => setTimeout(resolve, 2));
      if (performance.now() - started > 15_000) throw new Error(`${target.name} did not start`);
    }
  } finally {
    await stop(child);
  }
}

/** `count` DPoP proofs of one key for `url`, one a line. */
async function dpopProofs(url: string, count: number): Promise<string> {
  const { publicKey, privateKey } = await generateKeyPair("ES256");
  const jwk = await exportJWK(publicKey);
  const iat = Math.floor(Date.now() / 1000);
  const proofs: string[] = [];
  for (let i = 0; i < count; i++) {
    proofs.push(
      await new SignJWT({ htm: "POST", htu: url, iat, jti: crypto.randomUUID() })
        .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk })
        .sign(privateKey),
    );
  }
  return proofs.join("\n") + "\n";
}

async function wrk(
  url: string,
  seconds: number,
  connections: number,
  dpop = false,
): Promise<number> {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/post.lua`, dpop ? DPOP_LUA : LUA);
    const script = ["-s", `${dir}/post.lua`, url];
    if (dpop) {
      await Deno.writeTextFile(
        `${dir}/proofs.txt`,
        await dpopProofs(url, DPOP_PROOFS_PER_SECOND * (seconds + 1)),
      );
      script.push(`${dir}/proofs.txt`);
    }
    const out = await new Deno.Command("wrk", {
      args: ["-t1", `-c${connections}`, `-d${seconds}s`, ...script],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    if (/Non-2xx/.test(text)) throw new Error(`non-2xx responses from ${url}:\n${text}`);
    const match = /Requests\/sec:\s+([\d.]+)/.exec(text);
    if (!match) throw new Error(`unexpected wrk output:\n${text}`);
    return Number(match[1]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Every row of the full run: the `--before` row if asked for, our configurations, the peer. */
async function allTargets(): Promise<Target[]> {
  return [
    ...(opts.before ? [await before(opts.before)] : []),
    ours("default: WebCrypto on a worker pool, no FFI"),
    ours("--signer openssl, with --allow-ffi", ["--signer", "openssl"], ["--allow-ffi"]),
    // A dedicated control listener turns request capture off (docs/mock-oidc.md): shows what
    // capture costs.
    ours("default signer, --control-addr set, so no request capture", [
      "--control-addr",
      "127.0.0.1:0",
    ]),
    {
      ...ours("default signer, a DPoP proof on each request: DPoP-bound tokens"),
      dpop: true,
    },
    peer(await ensurePeer()),
  ];
}

async function main(): Promise<void> {
  const seconds = Number(opts.seconds);
  const rounds = Number(opts.rounds);
  const connections = Number(opts.connections);
  const starts = Number(opts.starts);
  const beforeOnly = opts["before-only"];
  if (beforeOnly && !opts.before) throw new Error("--before-only needs --before");
  const targets: Target[] = beforeOnly
    ? [await before(opts.before!), ours("default: WebCrypto on a worker pool, no FFI")]
    : await allTargets();

  const startMs = new Map<string, number>();
  // The DPoP row starts the default configuration again: its start is not measured twice.
  const started = targets.filter((t) => !t.dpop);
  if (starts > 0 && !beforeOnly) {
    for (const target of started) await startTime(target); // warm caches, discarded
  }
  const samples = new Map<string, number[]>(started.map((t) => [t.name, []]));
  for (let i = 0; i < (beforeOnly ? 0 : starts); i++) {
    for (const target of started) samples.get(target.name)!.push(await startTime(target));
  }
  for (const [name, values] of samples) startMs.set(name, median(values));

  const running = targets.map((target) => ({ target, port: freePort() }))
    .map(({ target, port }) => ({ target, port, child: spawn(target, port) }));
  const rps = new Map<string, number[]>(targets.map((t) => [t.name, []]));
  try {
    for (const { target, port } of running) {
      const url = `http://127.0.0.1:${port}${target.tokenPath}`;
      await waitFor(`http://127.0.0.1:${port}${target.jwksPath}`);
      await wrk(url, 1, connections, target.dpop); // warm-up
    }
    for (let round = 0; round < rounds; round++) {
      for (const { target, port } of round % 2 === 0 ? running : [...running].reverse()) {
        const url = `http://127.0.0.1:${port}${target.tokenPath}`;
        rps.get(target.name)!.push(await wrk(url, seconds, connections, target.dpop));
      }
    }
  } finally {
    for (const { child } of running) await stop(child);
  }

  const load = Deno.loadavg().map((v) => v.toFixed(1)).join(" ");
  const peerRps = beforeOnly ? NaN : median(rps.get(targets[targets.length - 1].name)!);
  const lines = [
    `Run ${
      new Date().toISOString().slice(0, 16)
    }Z, \`deno run -A tests/bench/mock_oidc/run.ts\`: ` +
    `wrk -t1 -c${connections}, ${rounds} interleaved rounds of ${seconds} s, medians; start = ` +
    `${
      beforeOnly
        ? "not measured (`--before-only`)"
        : `median of ${starts} spawns until the first JWKS 200`
    }. Peer: \`oauth2-mock-server\` ` +
    `${PEER_VERSION} on node ${await nodeVersion()}. Load average at the end: ${load} ` +
    `(2-core machine shared with other work; ratios are what counts).`,
    "",
    "| server | start to first JWKS | client_credentials tokens/s (RS256) | vs peer |",
    "| --- | --- | --- | --- |",
    ...targets.map((t) => {
      const value = median(rps.get(t.name)!);
      const start = startMs.get(t.name);
      return `| ${t.name} | ${start === undefined ? "—" : `${start.toFixed(0)} ms`} | ` +
        `${value.toFixed(0)} ` +
        `(rounds: ${rps.get(t.name)!.map((v) => v.toFixed(0)).join(", ")}) | ` +
        `${beforeOnly ? "—" : `${(value / peerRps).toFixed(2)}×`} |`;
    }),
  ];
  if (opts.before) {
    const [was, now] = [rps.get(targets[0].name)!, rps.get(targets[1].name)!];
    const perRound = now.map((value, round) => value / was[round]);
    lines.push(
      "",
      `After/before (default row against the \`--before\` row), median of per-round ratios: ` +
        `${median(perRound).toFixed(2)}× (rounds: ${
          perRound.map((r) => r.toFixed(2)).join(", ")
        }); ` +
        `ratio of the medians ${(median(now) / median(was)).toFixed(2)}×.`,
    );
  }
  const ours0 = targets[opts.before ? 1 : 0].name;
  const ratio = median(rps.get(ours0)!) / peerRps;
  const start = startMs.get(ours0)!;
  if (!beforeOnly) {
    lines.push(
      "",
      `Goals (default configuration): start ≤ 300 ms → ${start.toFixed(0)} ms ` +
        `(${start <= 300 ? "met" : "missed"}); ≥ 2× the peer's tokens/s → ${ratio.toFixed(2)}× ` +
        `(${ratio >= 2 ? "met" : "missed"} in this run).`,
    );
  }
  const text = lines.join("\n");
  await Deno.stdout.write(new TextEncoder().encode(`${text}\n`));
  if (opts.write) await writeSection(text);
}

async function waitFor(url: string): Promise<void> {
  const deadline = performance.now() + 15_000;
  while (performance.now() < deadline) {
    try {
      const res = await fetch(url);
      await res.body?.cancel();
      if (res.ok) return;
    } catch { /* not yet */ }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${url} never answered`);
}

async function nodeVersion(): Promise<string> {
  const out = await new Deno.Command("node", { args: ["--version"], stdout: "piped" }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

async function writeSection(body: string): Promise<void> {
  const text = await Deno.readTextFile(RESULTS);
  const start = text.indexOf("## mock-oidc\n");
  const next = text.indexOf("\n## ", start + 1);
  if (start < 0 || next < 0) throw new Error("Cannot find the ## mock-oidc section");
  const updated = `${text.slice(0, start)}## mock-oidc\n\n${body}\n${text.slice(next)}`;
  await Deno.writeTextFile(RESULTS, updated);
  // Keep the file as `deno fmt --check` (CI) wants it.
  await new Deno.Command(Deno.execPath(), { args: ["fmt", "-q", RESULTS] }).output();
}

if (import.meta.main) await main();
