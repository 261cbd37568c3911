/**
 * Shutdown resets (run on demand, not a test):
 *
 *   deno run -A tests/bench/shutdown_resets/run.ts [--shutdowns 10] [--clients 16]
 *
 * Counts, per shutdown of a kit server (`startServer`), the keep-alive clients that got a reset or
 * a connection closed without an answer instead of a 503 with `Connection: close`, for clients
 * that send back to back, clients that pace their requests (0–50 ms), and clients that reconnect
 * at once after each 503 (a refused connection once the listener is closed is not counted: that
 * is the expected end). Baseline in the same run: the drain with `closeNotice: 0`, which closes
 * as soon as no request is in flight (the kit's behaviour before it waited for the notices).
 * Prints a Markdown table for tests/bench/RESULTS.md.
 */
import { parseArgs } from "node:util";
import { startServer } from "@svc/shared/server";
import { silentLogger } from "@svc/shared/log";
import { type KeepAliveRecord, startKeepAliveClients } from "@svc/testing";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    shutdowns: { type: "string", default: "10" },
    clients: { type: "string", default: "16" },
  },
});
const SHUTDOWNS = Number(values.shutdowns);
const CLIENTS = Number(values.clients);

type Kind = "back to back" | "paced 0–50 ms" | "reconnecting after each 503";
const KINDS: Kind[] = ["back to back", "paced 0–50 ms", "reconnecting after each 503"];

function cut(record: KeepAliveRecord): boolean {
  return record.failure !== undefined && record.failure !== "ConnectionRefused";
}

/** One client that opens a new connection whenever it was told to close, until it fails. */
async function reconnecting(url: string, stop: () => boolean): Promise<KeepAliveRecord> {
  for (;;) {
    const [record] = await startKeepAliveClients(url, { clients: 1 }).ended;
    if (record.failure !== undefined || stop()) return record;
  }
}

async function oneShutdown(kind: Kind, closeNotice: number | undefined): Promise<number> {
  const server = await startServer([{
    name: "api",
    addr: "127.0.0.1:0",
    handler: async () => {
      await new Promise((r) => setTimeout(r, Math.random() * 3));
      return new Response("ok");
    },
  }], { logger: silentLogger(), handleSignals: false, shutdownGrace: 10_000, closeNotice });
  let done = false;
  const records: Promise<KeepAliveRecord[]> = kind === "reconnecting after each 503"
    ? Promise.all(Array.from({ length: CLIENTS }, () => reconnecting(server.urls.api, () => done)))
    : startKeepAliveClients(server.urls.api, {
      clients: CLIENTS,
      paceMs: kind === "paced 0–50 ms" ? 50 : 0,
    }).ended;
  await new Promise((r) => setTimeout(r, 300));
  await server.shutdown();
  done = true;
  return (await records).filter(cut).length;
}

const rows: string[] = [];
for (const kind of KINDS) {
  const counts: Record<string, number[]> = { baseline: [], drain: [] };
  for (let i = 0; i < SHUTDOWNS; i++) {
    // alternate, so machine noise hits both alike
    counts.baseline.push(await oneShutdown(kind, 0));
    counts.drain.push(await oneShutdown(kind, undefined));
  }
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const cell = (xs: number[]) =>
    `${sum(xs)} (${(sum(xs) / xs.length).toFixed(1)} per shutdown, max ${Math.max(...xs)})`;
  rows.push(`| ${kind} | ${cell(counts.baseline)} | ${cell(counts.drain)} |`);
}
const report = `Run ${
  new Date().toISOString()
}, ${SHUTDOWNS} shutdowns per cell, ${CLIENTS} keep-alive clients each, Deno ${Deno.version.deno}, load average ${
  Deno.loadavg().map((x) => x.toFixed(2)).join(" ")
}.

| clients | cut without a 503: baseline (closeNotice 0) | cut without a 503: drain with notices (default) |
| --- | --- | --- |
${rows.join("\n")}`;
Deno.stdout.writeSync(new TextEncoder().encode(report + "\n"));
