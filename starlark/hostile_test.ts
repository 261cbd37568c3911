/**
 * Every hostile program of _test_support.ts ends with a budget error (kind "limit") under the
 * hostile-suite budgets (docs/starlark.md#hostile-programs) and under the defaults; timings and
 * peak RSS are measured by the benchmark (tests/bench/starlark/hostile.ts), not here.
 */
import assert from "node:assert/strict";
import { run } from "./mod.ts";
import { HOSTILE, hostileProgram } from "./_test_support.ts";

const MiB = 1024 * 1024;
/** The budgets the hostile programs were first run with, plus a 64 MiB allocation budget. */
const ISSUE_BUDGETS = {
  maxSteps: 1_000_000,
  timeoutMs: 5000,
  maxBytes: MiB,
  maxDepth: 64,
  maxAllocBytes: 64 * MiB,
};
/** Safety net only: no hostile program may run away (timing is the benchmark's job). */
const RUNAWAY_MS = 30_000;

Deno.test("hostile programs end with a budget error under the hostile-suite budgets", async (t) => {
  for (const h of HOSTILE) {
    await t.step(h.name, async () => {
      const start = performance.now();
      const r = await run(hostileProgram(h), { budgets: ISSUE_BUDGETS });
      const ms = performance.now() - start;
      assert.ok(!r.ok, `${h.name}: finished with ${JSON.stringify(r.ok && r.value)?.slice(0, 60)}`);
      assert.equal(r.error.kind, "limit", `${h.name}: ${r.error.code} ${r.error.message}`);
      assert.ok(h.codes.includes(r.error.code), `${h.name}: ${r.error.code}`);
      assert.ok(ms < RUNAWAY_MS, `${h.name}: ${ms} ms`);
    });
  }
});

Deno.test("hostile programs end with a budget error under the default budgets", async (t) => {
  // a sample across the families (all of them run under defaults in the benchmark)
  const names = [
    "tuple keys sharing a 10 MB tuple (once: 4.2 GB crash)",
    "== of shared nested lists",
    "many small lists kept",
    "returning a shared 10^9-element list (once: heap exhausted)",
    "a million-deep list, str",
  ];
  for (const h of HOSTILE.filter((x) => names.includes(x.name))) {
    await t.step(h.name, async () => {
      const r = await run(hostileProgram(h));
      assert.ok(!r.ok, h.name);
      assert.equal(r.error.kind, "limit", `${h.name}: ${r.error.code} ${r.error.message}`);
      assert.ok(h.codes.includes(r.error.code), `${h.name}: ${r.error.code}`);
    });
  }
});

Deno.test("after an asynchronous host call, the deadline holds inside long operations", async () => {
  // Once, `"aab" in s` on a big string ran 71 s past a 5 s timeout after an async host call
  const src = hostileProgram({
    name: "async then search",
    body: 'n = nap()\ns = "ab" * (1 << 19)\nfor i in range(1000000000):\n    "aab" in s',
    codes: [],
  });
  const start = performance.now();
  const r = await run(src, {
    predeclared: { nap: () => Promise.resolve(1) },
    budgets: { timeoutMs: 500, maxSteps: Infinity },
  });
  const ms = performance.now() - start;
  assert.ok(!r.ok && r.error.code === "timeout", JSON.stringify(r));
  assert.ok(ms < RUNAWAY_MS, `${ms} ms`);
});

Deno.test("unlimited budgets still end a runaway allocation before V8 would abort", async (t) => {
  // in a process with a 256 MiB heap, so the ceiling (a fifth of it) is reached quickly
  const file = await Deno.makeTempFile({ suffix: ".star" });
  const cli = new URL("./cli.ts", import.meta.url).pathname;
  const unlimited = ["alloc", "steps", "bytes", "depth"].map((b) => `--max-${b}=unlimited`)
    .concat("--timeout=unlimited");
  try {
    for (const h of HOSTILE.filter((x) => /kept|growth|returning/.test(x.name))) {
      await t.step(h.name, async () => {
        await Deno.writeTextFile(file, hostileProgram(h));
        const out = await new Deno.Command(Deno.execPath(), {
          args: ["run", "--v8-flags=--max-old-space-size=256", "-A", cli, ...unlimited, file],
        }).output();
        const err = new TextDecoder().decode(out.stderr);
        assert.equal(out.code, 1, err); // a budget error, not a crash (V8 aborts with 133/134)
        assert.match(err, /a fifth of the JS heap limit|max_bytes|exceeds limit/);
      });
    }
  } finally {
    await Deno.remove(file);
  }
});
