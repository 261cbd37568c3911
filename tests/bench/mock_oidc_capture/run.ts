// deno-lint-ignore-file no-console -- a benchmark reports on the console
/**
 * Capture-log memory benchmark (run on demand, never by `deno test`): RSS of a mock-oidc process
 * after 300 protocol requests with 1 MiB bodies, each captured, next to the capture budget
 * (`--capture-max-bytes`) and to the same process with capture budget 0 (baseline: only the newest
 * entry is kept). Goal: RSS after the load stays under budget + a fixed margin over the baseline,
 * and returns near the baseline after `POST /_mock/reset`. Then the long load: 10 000
 * bodies of 1 MiB (bounded to 240 s) with the default budget.
 *
 * Usage: deno run -A tests/bench/mock_oidc_capture/run.ts [--write] [--quick]
 * `--write` replaces the `## mock-oidc capture memory` section of tests/bench/RESULTS.md;
 * `--quick` skips the 10 000-body run.
 */
import { startService } from "@svc/testing";

const MAIN = new URL("../../../services/mock-oidc/main.ts", import.meta.url).pathname;
const RESULTS = new URL("../RESULTS.md", import.meta.url).pathname;
const BODIES = 300;
const ISSUE_BODIES = 10_000;
const ISSUE_SECONDS = 240;
const BODY = 1024 * 1024 - 64; // just under the 1 MiB capture limit, with the form prefix
const MiB = 1024 * 1024;
const BUDGET = 64 * MiB;
const REPEATS = 3;

const mb = (n: number) => (n / MiB).toFixed(0);

async function rssOf(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

async function run(
  budget: number,
  bodies: number,
  options: { seconds?: number; env?: Record<string, string> } = {},
) {
  const { seconds = Infinity, env = {} } = options;
  const mock = await startService({
    entry: MAIN,
    args: [
      "--addr",
      "127.0.0.1:0",
      "--metrics-addr",
      "127.0.0.1:0",
      "--capture-max-bytes",
      String(budget),
    ],
    env: { JSON_CONFIG: "{}", ...env },
    listeners: ["api", "metrics"],
  });
  try {
    const before = await rssOf(mock.pid);
    const body = "grant_type=client_credentials&pad=" + "x".repeat(BODY - 34);
    const deadline = performance.now() + seconds * 1000;
    let peak = before;
    let sent = 0;
    const checkpoints: string[] = [];
    for (; sent < bodies && performance.now() < deadline; sent++) {
      const res = await fetch(`${mock.url}/cap/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body,
      });
      await res.body?.cancel();
      if (sent % 10 === 0) peak = Math.max(peak, await rssOf(mock.pid));
      if ((sent + 1) % 2000 === 0) checkpoints.push(`${sent + 1}: ${mb(await rssOf(mock.pid))}`);
    }
    const after = await rssOf(mock.pid);
    if (sent % 2000 !== 0) checkpoints.push(`${sent}: ${mb(after)}`);
    // Reading the log builds its JSON (base64 and text of every body): measured apart.
    const list = await fetch(`${mock.url}/_mock/requests?issuer=cap`);
    const listStatus = list.status;
    const kept = list.ok ? (await list.json()).count as number : (await list.text(), -1);
    const listing = await rssOf(mock.pid);
    await (await fetch(`${mock.url}/_mock/reset`, { method: "POST" })).body?.cancel();
    // A little ordinary traffic after the reset, then the resident size it settles at.
    for (let i = 0; i < 50; i++) await (await fetch(`${mock.url}/cap/jwks`)).body?.cancel();
    await new Promise((r) => setTimeout(r, 1000));
    const reset = await rssOf(mock.pid);
    peak = Math.max(peak, after);
    return { sent, before, after, peak, kept, listStatus, listing, reset, checkpoints };
  } finally {
    await mock.stop();
  }
}

// glibc keeps freed 1 MiB blocks in its heap (its mmap threshold rises to them); with a fixed
// threshold they are unmapped when freed, so RSS shows what the process really still holds.
const MMAP = { MALLOC_MMAP_THRESHOLD_: "131072" };
type Run = Awaited<ReturnType<typeof run>>;
/** Field by field median of `REPEATS` runs: one process's RSS drifts by tens of MiB. */
async function median(make: () => Promise<Run>): Promise<Run> {
  const runs: Run[] = [];
  for (let i = 0; i < REPEATS; i++) runs.push(await make());
  const mid = (pick: (r: Run) => number) => runs.map(pick).sort((a, b) => a - b)[REPEATS >> 1];
  return {
    ...runs[0],
    before: mid((r) => r.before),
    after: mid((r) => r.after),
    peak: mid((r) => r.peak),
    listing: mid((r) => r.listing),
    reset: mid((r) => r.reset),
  };
}
const baseline = await median(() => run(0, BODIES));
const capped = await median(() => run(BUDGET, BODIES));
const baselineMmap = await median(() => run(0, BODIES, { env: MMAP }));
const cappedMmap = await median(() => run(BUDGET, BODIES, { env: MMAP }));
const issue = Deno.args.includes("--quick")
  ? undefined
  : await run(BUDGET, ISSUE_BODIES, { seconds: ISSUE_SECONDS });
const over = capped.after - baseline.after;
const overMmap = cappedMmap.after - baselineMmap.after;
const row = (name: string, r: typeof capped, base = baseline) =>
  `| ${name} | ${r.sent} | ${r.kept} | ${mb(r.before)} | ${mb(r.after)} | ${mb(r.peak)} | ${
    mb(r.after - base.after)
  } | ${r.listStatus} | ${mb(r.listing)} | ${mb(r.reset)} | ${mb(r.reset - base.reset)} |`;
const table = [
  `Measured ${
    new Date().toISOString().slice(0, 16)
  }Z by \`tests/bench/mock_oidc_capture/run.ts\`: one`,
  "mock-oidc process per run, POST /{issuer}/token requests with 1 MiB form bodies, each captured;",
  "RSS read from /proc after the load (and every 10 requests for the peak), after a full",
  "GET /_mock/requests, and after POST /_mock/reset plus 50 small requests and 1 s. The 300-body",
  `rows are medians of ${REPEATS} runs; the long load is one run (bounded to ${ISSUE_SECONDS} s).`,
  "",
  "| capture budget | bodies sent | entries kept | RSS before MiB | RSS after load MiB | peak MiB | after − baseline MiB | GET /_mock/requests | RSS after listing MiB | RSS after reset MiB | after reset − baseline MiB |",
  "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  row("0 (baseline: newest entry only)", baseline),
  row(`${mb(BUDGET)} MiB (default)`, capped),
  row("0, `MALLOC_MMAP_THRESHOLD_=131072` (baseline)", baselineMmap, baselineMmap),
  row(`${mb(BUDGET)} MiB, \`MALLOC_MMAP_THRESHOLD_=131072\``, cappedMmap, baselineMmap),
  ...(issue ? [row(`${mb(BUDGET)} MiB, the long load`, issue)] : []),
  "",
  `Kept bodies over the baseline: ${mb(over)} MiB for a ${mb(BUDGET)} MiB budget ` +
  `(ratio ${(over / BUDGET).toFixed(2)}, margin ${mb(over - BUDGET)} MiB over the budget); ` +
  `with the fixed mmap threshold ${mb(overMmap)} MiB (ratio ${(overMmap / BUDGET).toFixed(2)}).`,
  "",
  "Before (bodies as one-byte strings, a Request copy for the handler, `arrayBuffer()` for the",
  "form, one JSON string for the listing; 2026-11-23T21:46Z): 213 MiB baseline, 384 MiB with the",
  "64 MiB budget, 692 MiB after a listing; 10 000 bodies without a budget: 1.68 GB, a",
  "500 on GET /_mock/requests, 830 MB after reset.",
  ...(issue
    ? [
      "",
      `The long load, RSS MiB after n bodies: ${issue.checkpoints.join(", ")} ` +
      "(the budget is full from the 64th on).",
    ]
    : []),
].join("\n");
console.log(table);
if (Deno.args.includes("--write")) {
  const text = await Deno.readTextFile(RESULTS);
  const heading = "## mock-oidc capture memory";
  const section = `${heading}\n\n${table}\n`;
  const start = text.indexOf(heading);
  let next = start < 0 ? -1 : text.indexOf("\n## ", start + heading.length);
  if (next >= 0) next += 1;
  const updated = start < 0
    ? `${text.trimEnd()}\n\n${section}`
    : `${text.slice(0, start)}${section}${next >= 0 ? "\n" + text.slice(next) : ""}`;
  await Deno.writeTextFile(RESULTS, updated);
  await new Deno.Command(Deno.execPath(), { args: ["fmt", RESULTS] }).output();
}
