/**
 * What enforcing mock-oidc's read and write timeouts costs: the same build run with its defaults
 * (`--read-timeout=5s --write-timeout=10s`, every request body and response wrapped) against
 * itself with both turned off (`=0`, the baseline), in the same run, rounds interleaved. Two
 * loads: GET JWKS (no signing, so the wrappers' share is largest) and `client_credentials`
 * tokens (a POST body to read, one signature). Run on demand, never by `deno test`; needs `wrk`.
 *
 * Usage: deno run -A tests/bench/mock_oidc_timeouts/run.ts [--write] [--seconds 4] [--rounds 5]
 *        [--connections 16]
 * `--write` replaces the `## mock-oidc timeouts` section of tests/bench/RESULTS.md.
 */
import { parseArgs } from "node:util";
import { SERVICES } from "../../../deploy/services.ts";

const MAIN = new URL("../../../services/mock-oidc/main.ts", import.meta.url).pathname;
const RESULTS = new URL("../RESULTS.md", import.meta.url).pathname;
const PERMISSIONS = SERVICES.find((s) => s.name === "mock-oidc")!.permissions;
const TOKEN_LUA = `wrk.method = "POST"
wrk.body = "grant_type=client_credentials&scope=api"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Authorization"] = "Basic YmVuY2g6c2VjcmV0"
`;

const { values: opts } = parseArgs({
  args: Deno.args,
  options: {
    write: { type: "boolean", default: false },
    seconds: { type: "string", default: "4" },
    rounds: { type: "string", default: "5" },
    connections: { type: "string", default: "16" },
  },
});
const seconds = Number(opts.seconds);
const rounds = Number(opts.rounds);
const connections = Number(opts.connections);

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

async function start(extra: string[]): Promise<{ child: Deno.ChildProcess; base: string }> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...PERMISSIONS,
      MAIN,
      `--addr=127.0.0.1:${port}`,
      "--metrics-addr=",
      "--log-level=warn",
      ...extra,
    ],
    env: { JSON_CONFIG: "{}" },
    stdout: "null",
    stderr: "null",
  }).spawn();
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    try {
      const res = await fetch(`${base}/default/jwks`);
      await res.body?.cancel();
      if (res.status === 200) return { child, base };
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function wrk(url: string, lua?: string): Promise<number> {
  const script = lua ? await Deno.makeTempFile({ suffix: ".lua" }) : undefined;
  if (script) await Deno.writeTextFile(script, lua!);
  try {
    const out = await new Deno.Command("wrk", {
      args: [`-t2`, `-c${connections}`, `-d${seconds}s`, ...(script ? ["-s", script] : []), url],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    const match = /Requests\/sec:\s+([\d.]+)/.exec(text);
    if (!match) throw new Error(`unexpected wrk output:\n${text}`);
    return Number(match[1]);
  } finally {
    if (script) await Deno.remove(script);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const variants = [
  { name: "timeouts enforced (defaults 5s / 10s)", args: [] },
  { name: "timeouts off (baseline)", args: ["--read-timeout=0", "--write-timeout=0"] },
];
const servers = [];
for (const v of variants) servers.push({ ...v, ...(await start(v.args)) });
const loads = [
  { name: "GET /default/jwks", path: "/default/jwks", lua: undefined },
  { name: "POST /default/token (client_credentials)", path: "/default/token", lua: TOKEN_LUA },
];
const results: Record<string, Record<string, number[]>> = {};
try {
  for (const load of loads) {
    for (const s of servers) await wrk(`${s.base}${load.path}`, load.lua); // warm-up
    for (let round = 0; round < rounds; round++) {
      for (const s of servers) {
        const rps = await wrk(`${s.base}${load.path}`, load.lua);
        ((results[load.name] ??= {})[s.name] ??= []).push(rps);
      }
    }
  }
} finally {
  for (const s of servers) {
    s.child.kill("SIGTERM");
    await s.child.status;
  }
}

const lines = [
  "## mock-oidc timeouts",
  "",
  `Cost of enforcing \`--read-timeout\` and \`--write-timeout\` (kit \`withReadTimeout\` / ` +
  `\`withWriteTimeout\`): the same build with its defaults against itself with both off, ` +
  `rounds interleaved; wrk, ${connections} connections, ${seconds} s per round, ${rounds} ` +
  `rounds, median req/s. \`deno run -A tests/bench/mock_oidc_timeouts/run.ts --write\`.`,
  "",
  "| load | timeouts enforced | timeouts off (baseline) | ratio |",
  "| --- | --- | --- | --- |",
];
for (const load of loads) {
  const on = median(results[load.name][variants[0].name]);
  const off = median(results[load.name][variants[1].name]);
  lines.push(`| ${load.name} | ${on.toFixed(0)} | ${off.toFixed(0)} | ${(on / off).toFixed(2)}× |`);
}
const section = lines.join("\n") + "\n";
Deno.stdout.writeSync(new TextEncoder().encode(section));
if (opts.write) {
  const text = await Deno.readTextFile(RESULTS);
  const start = text.indexOf("## mock-oidc timeouts");
  let updated: string;
  if (start < 0) updated = text.trimEnd() + "\n\n" + section;
  else {
    const next = text.indexOf("\n## ", start + 1);
    updated = text.slice(0, start) + section + (next < 0 ? "" : text.slice(next));
  }
  await Deno.writeTextFile(RESULTS, updated);
}
