/**
 * Control-plane benchmark (run on demand, never by `deno test`):
 *  1. take latency: time from sending a protocol request to a waiting `/_mock/requests/take`
 *     returning it, against the plain round trip of the same request (baseline);
 *  2. `/_mock/mint` throughput against `/{issuer}/token` (client_credentials) throughput, both
 *     driven by wrk from a second process.
 *
 * Usage: deno run -A tests/bench/mock_oidc_control/run.ts [--write]
 * `--write` replaces the `## mock-oidc control plane` section of tests/bench/RESULTS.md.
 */
import { startService } from "@svc/testing";

const MAIN = new URL("../../../services/mock-oidc/main.ts", import.meta.url).pathname;
const RESULTS = new URL("../RESULTS.md", import.meta.url).pathname;
const SAMPLES = 300;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function summary(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99) };
}

async function roundTrip(url: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(url);
  await res.body?.cancel();
  return performance.now() - started;
}

async function takeLatency(base: string): Promise<number> {
  const take = fetch(`${base}/_mock/requests/take`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ issuer: "bench", endpoint: "jwks", timeoutMs: 5000 }),
  });
  // Let the take reach the server and start waiting.
  await new Promise((resolve) => setTimeout(resolve, 5));
  const started = performance.now();
  const protocol = fetch(`${base}/bench/jwks`).then((r) => r.body?.cancel());
  const res = await take;
  await res.json();
  const elapsed = performance.now() - started;
  await protocol;
  if (res.status !== 200) throw new Error(`take answered ${res.status}`);
  return elapsed;
}

async function wrk(url: string, script: string): Promise<number> {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/post.lua`, script);
    const out = await new Deno.Command("wrk", {
      args: ["-t2", "-c16", "-d5s", "-s", `${dir}/post.lua`, url],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    const match = /Requests\/sec:\s+([\d.]+)/.exec(text);
    if (!match || /Non-2xx/.test(text)) throw new Error(`wrk failed:\n${text}`);
    return Number(match[1]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const lua = (body: string, type: string) =>
  `wrk.method = "POST"\nwrk.body = ${
    JSON.stringify(body)
  }\nwrk.headers["Content-Type"] = "${type}"\n`;

async function main() {
  const mock = await startService({
    entry: MAIN,
    args: ["--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"],
    env: { JSON_CONFIG: "{}" },
    listeners: ["api", "metrics"],
  });
  try {
    const base = mock.url;
    for (let i = 0; i < 30; i++) await takeLatency(base); // warm-up, creates the issuer key
    const baseline: number[] = [];
    const take: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      baseline.push(await roundTrip(`${base}/bench/jwks`));
      take.push(await takeLatency(base));
    }
    await fetch(`${base}/_mock/reset`, { method: "POST" }).then((r) => r.body?.cancel());
    const mint = await wrk(`${base}/_mock/mint`, lua('{"issuer":"bench"}', "application/json"));
    // Capture is on during the token run, as in normal use; clear the log afterwards.
    const token = await wrk(
      `${base}/bench/token`,
      lua(
        "grant_type=client_credentials&client_id=c&client_secret=s",
        "application/x-www-form-urlencoded",
      ),
    );
    const b = summary(baseline);
    const t = summary(take);
    const fmt = (n: number) => n.toFixed(2);
    const section = [
      "## mock-oidc control plane",
      "",
      `Measured ${
        new Date().toISOString().slice(0, 16)
      }Z by \`tests/bench/mock_oidc_control/run.ts\`:`,
      "one mock-oidc process, load from this process (fetch) or wrk (`-t2 -c16 -d5s`) on loopback.",
      "",
      "| measure | p50 ms | p95 ms | p99 ms | ratio p50 |",
      "| --- | --- | --- | --- | --- |",
      `| GET /{issuer}/jwks round trip (baseline) | ${fmt(b.p50)} | ${fmt(b.p95)} | ${
        fmt(b.p99)
      } | 1.00 |`,
      `| protocol request sent → waiting take returns it | ${fmt(t.p50)} | ${fmt(t.p95)} | ${
        fmt(t.p99)
      } | ${fmt(t.p50 / b.p50)} |`,
      "",
      "| throughput (RS256) | requests/s | ratio |",
      "| --- | --- | --- |",
      `| POST /{issuer}/token client_credentials (baseline) | ${token.toFixed(0)} | 1.00 |`,
      `| POST /_mock/mint | ${mint.toFixed(0)} | ${fmt(mint / token)} |`,
      "",
      `${SAMPLES} latency samples each. A token response signs one JWT, like a mint.`,
      "",
    ].join("\n");
    await Deno.stdout.write(new TextEncoder().encode(section));
    if (Deno.args.includes("--write")) {
      const text = await Deno.readTextFile(RESULTS);
      const start = text.indexOf("## mock-oidc control plane");
      const end = text.indexOf("\n## ", start + 1);
      await Deno.writeTextFile(
        RESULTS,
        `${text.slice(0, start)}${section}\n${text.slice(end + 1)}`,
      );
      // Keep the file as `deno fmt` wants it (aligned tables).
      await new Deno.Command(Deno.execPath(), { args: ["fmt", "-q", RESULTS] }).output();
    }
  } finally {
    await mock.stop();
  }
}

if (import.meta.main) await main();
