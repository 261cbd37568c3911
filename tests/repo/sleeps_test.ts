/**
 * No test waits for time to pass on the real clock without saying why. A fixed sleep "to let it
 * settle" is the main flakiness risk on a busy machine: tests wait on the event itself (the kit's
 * `waitUntil`, bounded, checking the event), on an injected clock, or for one turn of the event
 * loop (`nextTurn`). Where real time is the point (a timer under test, a slow peer simulated), a
 * `// real clock: <why>` comment on the line or just above says so.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);
const SKIP_DIRS = new Set(["node_modules", ".git", ".data", "dist", "cov"]);
/** Fakes and benchmarks simulate time on purpose; the test kit's waits are where waiting lives. */
const NOT_TESTS = [
  "tests/bench/",
  "tests/fakes/",
  "testing/wait_until.ts",
  "tests/repo/sleeps_test.ts",
];

/** A sleep: a promise resolved by a timer, or the kit's delay() with a fixed time and no signal. */
const SLEEP = /new Promise\b.*\bsetTimeout\(|\bdelay\(\s*[\d_]+\s*\)/;
const MARKER = "real clock:";

function isTestCode(path: string): boolean {
  if (NOT_TESTS.some((p) => path.startsWith(p))) return false;
  return /_test\.ts$|(^|\/)_test_support\.ts$/.test(path) || path.startsWith("tests/") ||
    path.startsWith("testing/");
}

async function* files(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(new URL(dir || ".", ROOT))) {
    const path = dir + entry.name;
    if (entry.isDirectory) {
      if (!SKIP_DIRS.has(entry.name)) yield* files(path + "/");
    } else if (path.endsWith(".ts")) yield path;
  }
}

/** Lines that sleep without a `real clock:` reason on them or on the three lines above. */
function unexplainedSleeps(text: string): number[] {
  const lines = text.split("\n");
  return lines.flatMap((line, i) =>
    SLEEP.test(line) && !lines.slice(Math.max(0, i - 3), i + 1).some((l) => l.includes(MARKER))
      ? [i + 1]
      : []
  );
}

Deno.test("the sleep finder flags fixed sleeps and accepts the explained ones", () => {
  assert.deepEqual(unexplainedSleeps("await new Promise((r) => setTimeout(r, 50));"), [1]);
  assert.deepEqual(unexplainedSleeps("x\nawait delay(10);"), [2]);
  assert.deepEqual(unexplainedSleeps("// real clock: a slow peer\nawait delay(10);"), []);
  assert.deepEqual(unexplainedSleeps("await delay(60_000, { signal });"), []);
  assert.deepEqual(unexplainedSleeps("const giveUp = setTimeout(() => conn.close(), 5000);"), []);
});

Deno.test("every sleep in the tests says why it waits on the real clock", async () => {
  const found: string[] = [];
  for await (const path of files("")) {
    if (!isTestCode(path)) continue;
    const text = await Deno.readTextFile(new URL(path, ROOT));
    for (const line of unexplainedSleeps(text)) found.push(`${path}:${line}`);
  }
  assert.deepEqual(found, []);
});
