import assert from "node:assert/strict";
import { run } from "@svc/starlark";
import type { CapabilityRegistry } from "../capabilities/registry.ts";
import { t } from "../capabilities/schema.ts";
import type { Limits } from "../limits.ts";
import { connect, errorOf, sampleRegistry, valueOf } from "./_test_support.ts";

const main = (body: string) => `def main():\n${body.split("\n").map((l) => `  ${l}`).join("\n")}\n`;
const LIMIT = "resource limit exceeded";

function registry(): CapabilityRegistry {
  const r = sampleRegistry();
  r.register({
    name: "echo.nested",
    summary: "echo",
    input: t.fields({ v: t.list(t.list(t.int())) }),
    output: t.fields({ v: t.list(t.list(t.int())) }),
    handler: ({ v }) => ({ v }),
  });
  r.register({
    name: "blob.make",
    summary: "n bytes of text",
    input: t.fields({ n: t.int() }),
    output: t.fields({ s: t.str() }),
    handler: ({ n }) => ({ s: "x".repeat(n as number) }),
  });
  r.register({
    name: "text.len",
    summary: "length of a text",
    input: t.fields({ s: t.str() }),
    output: t.fields({ n: t.int() }),
    handler: ({ s }) => ({ n: (s as string).length }),
  });
  return r;
}

/** Runs `source` with limits and returns "ok" or the error text. */
async function outcome(limits: Partial<Limits>, source: string): Promise<string> {
  const c = await connect({ registry: registry(), limits });
  try {
    const r = await c.call("execute", { source });
    return r.isError ? errorOf(r) : (valueOf(r), "ok");
  } finally {
    await c.close();
  }
}

async function atBelowAbove(
  name: keyof Limits,
  bound: number,
  source: string,
): Promise<void> {
  assert.equal(await outcome({ [name]: bound + 1 }, source), "ok", `${name} above`);
  assert.equal(await outcome({ [name]: bound }, source), "ok", `${name} at`);
  assert.equal(await outcome({ [name]: bound - 1 }, source), LIMIT, `${name} below`);
}

Deno.test("execute limits hold at, just below and just above each bound", async (t2) => {
  await t2.step("maximum source bytes", async () => {
    const source = main("return 'é'");
    await atBelowAbove("maxSourceBytes", new TextEncoder().encode(source).length, source);
  });
  await t2.step("maximum execution steps", async () => {
    const source = main("x = [i * i for i in range(50)]\nreturn len(x)");
    const r = await run(source, { requireMain: true, topLevelHostCalls: false });
    assert.ok(r.ok);
    await atBelowAbove("maxExecutionSteps", r.steps, source);
  });
  await t2.step("maximum native calls", async () => {
    const source = main("return [time.now() for i in range(3)]");
    await atBelowAbove("maxNativeCalls", 3, source);
  });
  await t2.step("maximum value depth of the final value", async () => {
    await atBelowAbove("maxValueDepth", 4, main("return [[[1]]]"));
    await atBelowAbove("maxValueDepth", 1, main("return 'scalar'"));
  });
  await t2.step("maximum value depth of native arguments", async () => {
    // argument [[1]] has depth 3; result {v: [[1]]} has depth 4
    assert.equal(
      await outcome({ maxValueDepth: 2 }, main("echo.nested(v=[[1]])\nreturn 1")),
      LIMIT,
    );
    assert.equal(
      await outcome({ maxValueDepth: 3 }, main("echo.nested(v=[[1]])\nreturn 1")),
      LIMIT,
    );
    assert.equal(await outcome({ maxValueDepth: 4 }, main("echo.nested(v=[[1]])\nreturn 1")), "ok");
  });
  await t2.step("maximum value bytes of the final value", async () => {
    await atBelowAbove("maxValueBytes", 12, main("return 'x' * 10")); // "xxxxxxxxxx" = 12 bytes
  });
  await t2.step("maximum value bytes of native results and arguments", async () => {
    // result {"s":"xxxxxxxxxx"} = 18 bytes
    await atBelowAbove("maxValueBytes", 18, main("blob.make(n=10)\nreturn 1"));
    // argument "yyyyyyyyyyyyyyyyyyyy" = 22 bytes; result {"n":20} = 8 bytes
    await atBelowAbove("maxValueBytes", 22, main("text.len(s='y' * 20)\nreturn 1"));
  });
  await t2.step("maximum intermediate value bytes (unreturned results count)", async () => {
    const source = main("blob.make(n=10)\nblob.make(n=10)\nreturn None"); // 2 × 18 bytes
    await atBelowAbove("maxIntermediateBytes", 36, source);
  });
  await t2.step("a new execute call starts with fresh budgets", async () => {
    const c = await connect({
      registry: registry(),
      limits: { maxIntermediateBytes: 20, maxNativeCalls: 1 },
    });
    try {
      for (let i = 0; i < 3; i++) {
        valueOf(await c.call("execute", { source: main("return blob.make(n=10)") }));
      }
    } finally {
      await c.close();
    }
  });
  await t2.step("maximum execution time", async () => {
    const spin = main("x = 0\nfor i in range(100000000):\n  x += i\nreturn x");
    assert.equal(await outcome({ maxExecutionMs: 200, maxExecutionSteps: 1e12 }, spin), LIMIT);
    assert.equal(await outcome({ maxExecutionMs: 30_000 }, main("return 1")), "ok");
  });
});

Deno.test("the allocation budget bounds what a program holds, not what it has dropped", async (t2) => {
  // Building a 28 KB report line by line copies ~43 MB in total (each `+=` makes a new string):
  // an honest program, far below the step budget, whose live data stays tiny.
  const report = main("s = ''\nfor i in range(3000):\n  s += 'line %d\\n' % i\nreturn len(s)");
  await t2.step("garbage does not count: a report built line by line completes", async () => {
    assert.equal(await outcome({}, report), "ok");
  });
  await t2.step("data held live still ends with resource limit exceeded", async () => {
    const hold = main("keep = []\nfor i in range(3000):\n  keep.append('x' * 20000)\nreturn 1");
    assert.equal(await outcome({}, hold), LIMIT);
    assert.equal(
      await outcome({ maxAllocBytes: 1 << 20 }, main("return len('x' * (2 << 20))")),
      LIMIT,
    );
  });
});
