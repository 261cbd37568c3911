// deno-lint-ignore-file no-console -- a benchmark reports on the console
/**
 * Capture-log memory benchmark (run on demand, never by `deno test`): RSS of a mock-oidc process
 * after 300 protocol requests with 1 MiB bodies, each captured, next to the capture budget
 * (`--capture-max-bytes`) and to the same process with capture budget 0 (baseline: only the newest
 * entry is kept). Goal: RSS after the load stays under budget + a fixed margin.
 *
 * Usage: deno run -A tests/bench/mock_oidc_capture/run.ts [--write]
 * `--write` replaces the `## mock-oidc capture memory` section of tests/bench/RESULTS.md.
 */
import { startService } from "@svc/shared/testing";

const MAIN = new URL("../../../services/mock-oidc/main.ts", import.meta.url).pathname;
const RESULTS = new URL("../RESULTS.md", import.meta.url).pathname;
const BODIES = 300;
const BODY = 1024 * 1024 - 64; // just under the 1 MiB capture limit, with the form prefix
const MiB = 1024 * 1024;

async function rssOf(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

async function run(budget: number) {
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
    env: { JSON_CONFIG: "{}" },
    listeners: ["api", "metrics"],
  });
  try {
    const before = await rssOf(mock.pid);
    const body = "grant_type=client_credentials&pad=" + "x".repeat(BODY - 34);
    let peak = before;
    for (let i = 0; i < BODIES; i++) {
      const res = await fetch(`${mock.url}/cap/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body,
      });
      await res.body?.cancel();
      if (i % 10 === 0) peak = Math.max(peak, await rssOf(mock.pid));
    }
    const after = await rssOf(mock.pid);
    // Reading the log builds its JSON (base64 and text of every body): measured apart.
    const listed = await (await fetch(`${mock.url}/_mock/requests?issuer=cap`)).json();
    const listing = await rssOf(mock.pid);
    return { before, after, peak: Math.max(peak, after), kept: listed.count as number, listing };
  } finally {
    await mock.stop();
  }
}

const budget = 64 * MiB;
const baseline = await run(0);
const capped = await run(budget);
const mb = (n: number) => (n / MiB).toFixed(0);
const table = [
  `Measured ${
    new Date().toISOString().slice(0, 16)
  }Z by \`tests/bench/mock_oidc_capture/run.ts\`: one`,
  `mock-oidc process, ${BODIES} POST /{issuer}/token requests with 1 MiB form bodies, each captured;`,
  "RSS read from /proc after the load (and sampled every 10 requests for the peak).",
  "",
  "| capture budget | entries kept | RSS before MiB | RSS after load MiB | after − baseline MiB | RSS after a full GET /_mock/requests MiB |",
  "| -------------- | ------------ | -------------- | ------------------ | -------------------- | ---------------------------------------- |",
  `| 0 (baseline: newest entry only) | ${baseline.kept} | ${mb(baseline.before)} | ${
    mb(baseline.after)
  } | 0 | ${mb(baseline.listing)} |`,
  `| 64 MiB (default) | ${capped.kept} | ${mb(capped.before)} | ${mb(capped.after)} | ${
    mb(capped.after - baseline.after)
  } | ${mb(capped.listing)} |`,
  "",
  `Goal: RSS after the load under the budget plus a fixed margin over the baseline; here the ` +
  `capped process holds ${mb(capped.after - baseline.after)} MiB more than the baseline for a ` +
  `${mb(budget)} MiB budget. Each body is held once (1 byte per byte); its base64 and text are ` +
  "built when the log is read, so a full listing costs about 3.5× the stored bodies while it runs.",
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
