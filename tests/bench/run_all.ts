// deno-lint-ignore-file no-console -- a command-line tool talks to its user on the console
/**
 * `deno task bench [name…]`: runs every benchmark under `tests/bench/` one after another (never in
 * parallel: they measure a 2-core machine) and lets each update its log section of RESULTS.md
 * (under "History"); copy the new figures into its table under "Current figures" at the top
 * (`tests/repo/bench_results_test.ts` fails while a log is newer than its table).
 * Benchmarks drive load with `wrk` (Debian package `wrk`); the todo-api one needs
 * `TEST_DATABASE_URL` to name a Postgres server and prints its table for RESULTS.md.
 *
 * @module
 */

const BENCHES: { name: string; args: string[] }[] = [
  { name: "mock_oidc", args: ["--write"] },
  { name: "mock_oidc_control", args: ["--write"] },
  { name: "mock_oidc_capture", args: ["--write"] },
  { name: "todo_api", args: [] },
  { name: "starlark", args: [] },
  { name: "image_proxy", args: ["--write"] },
  { name: "mcp_server", args: ["--write"] },
  { name: "openapi_github", args: ["--write"] },
  { name: "runner_ctl", args: [] },
  { name: "shutdown_resets", args: [] },
];

const wanted = Deno.args;
let failed = 0;
for (const bench of BENCHES) {
  if (wanted.length && !wanted.includes(bench.name)) continue;
  const entry = new URL(`./${bench.name}/run.ts`, import.meta.url);
  try {
    Deno.statSync(entry);
  } catch {
    continue;
  }
  console.log(`\n=== ${bench.name}`);
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", entry.pathname, ...bench.args],
  }).spawn().status;
  if (code !== 0) {
    failed++;
    console.log(`=== ${bench.name}: exited with ${code}`);
  }
}
Deno.exit(failed ? 1 : 0);
