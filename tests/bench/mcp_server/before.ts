/**
 * `run.ts --before DIR`: the execute measurement of this tree and of another checkout (DIR, e.g.
 * `git worktree add --detach DIR REF` then `deno install --frozen` there) in the same run. Each
 * tree runs `execute_rounds.ts` in a child process of its own (from that tree, so its deno.json,
 * lock and node_modules are the ones used), both warmed up, then asked for rounds in alternating
 * order (before, after; then after, before; …).
 * @module
 */

const DRIVER = new URL("./execute_rounds.ts", import.meta.url).pathname;
const ROOT = new URL("../../../", import.meta.url).pathname.replace(/\/+$/, "");

/** What {@linkcode compareExecute} measures with. */
export interface CompareOptions {
  /** The other tree: the code before the change. */
  beforeDir: string;
  /** Rounds per tree. */
  rounds: number;
  /** Execute calls (and as many direct interpreter runs) per round and tree. */
  calls: number;
}

interface Round {
  execute: number[];
  direct: number[];
}

/** One tree's child process, asked for rounds over stdin. */
class Child {
  #process: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #lines: AsyncIterator<string>;

  constructor(readonly label: string, readonly root: string) {
    this.#process = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", DRIVER, root],
      cwd: root,
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    this.#writer = this.#process.stdin.getWriter();
    this.#lines = lines(this.#process.stdout)[Symbol.asyncIterator]();
  }

  async round(calls: number): Promise<Round> {
    await this.#writer.write(new TextEncoder().encode(`${calls}\n`));
    for (;;) {
      const next = await this.#lines.next();
      if (next.done) throw new Error(`${this.label}: the child ended`);
      if (next.value.startsWith("ROUND ")) return JSON.parse(next.value.slice(6));
    }
  }

  async close(): Promise<void> {
    await this.#writer.write(new TextEncoder().encode("\n")).catch(() => {});
    await this.#writer.close().catch(() => {});
    await this.#process.status;
  }
}

async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending = "";
  for await (const chunk of stream) {
    pending += decoder.decode(chunk, { stream: true });
    for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
      yield pending.slice(0, nl);
      pending = pending.slice(nl + 1);
    }
  }
}

function quantile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

async function gitHead(dir: string): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["rev-parse", "--short", "HEAD"],
    cwd: dir,
    stdout: "piped",
    stderr: "null",
  }).output();
  return out.success ? new TextDecoder().decode(out.stdout).trim() : dir;
}

/**
 * Measures execute before (another tree) and after (this tree) in alternating rounds and returns
 * a markdown log: per tree the p50 and p99 of all calls, the direct interpreter's p50, the
 * overhead (execute p50 minus direct p50) as the median of per-round values, and the after/before
 * ratios as medians of per-round ratios.
 */
export async function compareExecute(options: CompareOptions): Promise<string> {
  const beforeDir = options.beforeDir.replace(/\/+$/, "");
  const trees = [
    new Child(`before: ${await gitHead(beforeDir)}`, beforeDir),
    new Child(`after: ${await gitHead(ROOT)}`, ROOT),
  ];
  const rounds = trees.map(() => [] as Round[]);
  try {
    for (const child of trees) await child.round(Math.max(20, options.calls / 2)); // warm-up
    for (let r = 0; r < options.rounds; r++) {
      const order = r % 2 === 0 ? [0, 1] : [1, 0];
      for (const i of order) rounds[i].push(await trees[i].round(options.calls));
    }
  } finally {
    for (const child of trees) await child.close();
  }
  const p50 = (xs: number[]) => quantile(xs, 0.5);
  const per = rounds.map((rs) => ({
    execute: rs.map((r) => p50(r.execute)),
    overhead: rs.map((r) => p50(r.execute) - p50(r.direct)),
    all: rs.flatMap((r) => r.execute),
    direct: rs.flatMap((r) => r.direct),
  }));
  const ratio = (key: "execute" | "overhead") =>
    p50(per[1][key].map((after, r) => after / per[0][key][r]));
  const ratios = (key: "execute" | "overhead") =>
    per[1][key].map((after, r) => (after / per[0][key][r]).toFixed(2));
  const ms = (x: number) => x.toFixed(2);
  const load = Deno.loadavg().map((x) => x.toFixed(2)).join(" ");
  return [
    `Measured ${new Date().toISOString().slice(0, 16)}Z by \`deno run -A ` +
    `tests/bench/mcp_server/run.ts --before ${beforeDir} --rounds ${options.rounds} --calls ` +
    `${options.calls}\`, Deno ${Deno.version.deno}, load average ${load} at the end (shared ` +
    `2-core machine). Each tree in a child process of its own, warmed up, then ${options.rounds} ` +
    `rounds in alternating order of ${options.calls} execute calls (the program of this benchmark, ` +
    `in-memory SDK client, worker) and as many direct \`run()\` calls, one at a time.`,
    "",
    "| tree | execute p50 ms (all calls) | execute p99 ms | direct `run()` p50 ms | " +
    "overhead p50 ms (median of rounds) | overhead per round ms |",
    "| --- | --: | --: | --: | --: | --- |",
    ...trees.map((child, i) =>
      `| ${child.label} | ${ms(p50(per[i].all))} | ${ms(quantile(per[i].all, 0.99))} | ` +
      `${ms(p50(per[i].direct))} | ${ms(p50(per[i].overhead))} | ` +
      `${per[i].overhead.map(ms).join(", ")} |`
    ),
    "",
    `After/before, median of per-round ratios: execute p50 ${ratio("execute").toFixed(2)}× ` +
    `(rounds: ${ratios("execute").join(", ")}); overhead p50 ${ratio("overhead").toFixed(2)}× ` +
    `(rounds: ${ratios("overhead").join(", ")}).`,
  ].join("\n");
}
