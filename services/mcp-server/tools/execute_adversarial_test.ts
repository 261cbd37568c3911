import assert from "node:assert/strict";
import { CapabilityRegistry } from "../capabilities/registry.ts";
import { t } from "../capabilities/schema.ts";
import { allowAll } from "../auth/authorizer.ts";
import { resolveLimits } from "../limits.ts";
import { createExecute } from "./execute.ts";
import { createExecutePool } from "./server.ts";
import { ToolError } from "./errors.ts";
import { connect, errorOf, sampleRegistry, valueOf } from "./_test_support.ts";

const main = (body: string) => `def main():\n${body.split("\n").map((l) => `  ${l}`).join("\n")}\n`;
const LIMIT = "resource limit exceeded";

function registry(): CapabilityRegistry {
  const r = sampleRegistry();
  r.register({
    name: "blob.make",
    summary: "n bytes of text",
    input: t.fields({ n: t.int() }),
    output: t.fields({ s: t.str() }),
    handler: ({ n }) => ({ s: "x".repeat(n as number) }),
  });
  return r;
}

/** Starts both pool workers, so no worker start-up (slow on a loaded machine) is timed below. */
async function warm(c: Awaited<ReturnType<typeof connect>>): Promise<void> {
  const both = await Promise.all([1, 2].map(() => c.call("execute", { source: main("return 0") })));
  for (const r of both) valueOf(r);
}

/** Starts an adversarial call, then checks that a trivial call answers before it ends. */
async function trivialAnswersDuring(
  c: Awaited<ReturnType<typeof connect>>,
  source: string,
  slow = false,
): Promise<string> {
  const order: string[] = [];
  const adversary = c.call("execute", { source }).then((r) => {
    order.push("adversary");
    return errorOf(r);
  });
  // real clock: the adversary goes first and the trivial call must answer while it runs; had it
  // not started yet the trivial call would still answer (a weaker case), so nothing flakes.
  await new Promise((r) => setTimeout(r, 100));
  const quick = await c.call("execute", { source: main("return 'alive'") });
  order.push("trivial");
  assert.deepEqual(valueOf(quick), { result: "alive" });
  const text = await adversary;
  // a slow adversary (seconds of work) must not delay the trivial call
  if (slow) assert.deepEqual(order, ["trivial", "adversary"]);
  return text;
}

Deno.test("adversarial programs end as resource limit exceeded without stalling the server", async (t2) => {
  const c = await connect({
    registry: registry(),
    limits: { maxExecutionMs: 2000, maxExecutionSteps: 1e12, maxConcurrentExecutions: 2 },
  });
  try {
    await warm(c);
    const cases: Array<[string, string, boolean?]> = [
      ["giant string repeat", main("return len('x' * (1 << 30))")],
      ["repeat count too large", main("return len('x' * (1 << 40))")],
      ["large string repeat", main("return len('x' * (1 << 27))")],
      ["list doubling", main("x = [1]\nfor i in range(64):\n  x = x + x\nreturn len(x)")],
      ["bigint squaring", main("x = 3\nfor i in range(64):\n  x = x * x\nreturn 1")],
      ["string doubling", main("s = 'ab'\nfor i in range(64):\n  s = s + s\nreturn len(s)")],
      ["deep value", main("x = []\nfor i in range(100000):\n  x = [x]\nreturn x")],
      ["capability spam", main("return len([time.now() for i in range(100000)])")],
      [
        "huge intermediates",
        main("return len([len(blob.make(n=900000)['s']) for i in range(100)])"),
      ],
      ["time exhaustion", main("x = 0\nfor i in range(1 << 40):\n  x += 1\nreturn x"), true],
      [
        "dict growth",
        main("d = {}\nfor i in range(1 << 30):\n  d[str(i)] = 'v' * 1000\nreturn len(d)"),
      ],
    ];
    for (const [what, source, slow] of cases) {
      await t2.step(what, async () => {
        assert.equal(await trivialAnswersDuring(c, source, slow), LIMIT);
      });
    }
  } finally {
    await c.close();
  }
});

Deno.test("the worker heap limit is the backstop when interpreter budgets are off", async () => {
  const c = await connect({
    registry: registry(),
    limits: {
      maxExecutionMs: 3000,
      maxExecutionSteps: 1e15,
      maxAllocBytes: Infinity,
      maxValueBytes: 1e15,
      workerHeapMb: 48,
      maxConcurrentExecutions: 2,
    },
  });
  try {
    await warm(c);
    const hog = main("x = [[i] * 64 for i in range(100000000)]\nreturn len(x)");
    // (the interpreter's own allocation ceiling, a fifth of the worker's heap limit, now stops
    // the hog before the heap limit would halt the worker: it ends quickly, as resource limit)
    assert.equal(await trivialAnswersDuring(c, hog), LIMIT);
    // the halted worker was replaced: the pool still serves both slots
    const both = await Promise.all(
      [1, 2].map((i) => c.call("execute", { source: main(`return ${i}`) })),
    );
    assert.deepEqual(both.map((r: Parameters<typeof valueOf>[0]) => valueOf(r).result), [1, 2]);
  } finally {
    await c.close();
  }
});

function gated() {
  const r = registry();
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  r.register({
    name: "gate.wait",
    summary: "waits until released",
    handler: async () => {
      entered();
      await gate;
      return {};
    },
  });
  return { registry: r, open: () => open(), inside };
}

Deno.test("context deadline exceeded when no worker frees up in time", async () => {
  const g = gated();
  const c = await connect({
    registry: g.registry,
    limits: { maxConcurrentExecutions: 1, executionQueueMs: 200, maxExecutionMs: 20_000 },
  });
  try {
    const first = c.call("execute", { source: main("return gate.wait()") });
    await g.inside;
    assert.equal(
      errorOf(await c.call("execute", { source: main("return 1") })),
      "context deadline exceeded",
    );
    g.open();
    assert.deepEqual(valueOf(await first), { result: {} });
  } finally {
    await c.close();
  }
});

Deno.test("context canceled when the request is canceled mid-run", async () => {
  const g = gated();
  const limits = resolveLimits({ maxConcurrentExecutions: 1 });
  const pool = createExecutePool(limits);
  const execute = createExecute({ registry: g.registry, authorizer: allowAll(), limits, pool });
  try {
    const abort = new AbortController();
    const running = execute(main("return gate.wait()"), { id: "a" }, abort.signal);
    await g.inside;
    abort.abort();
    await assert.rejects(
      running,
      (e) => e instanceof ToolError && e.message === "context canceled",
    );
    g.open();
    // the canceled worker was replaced
    assert.deepEqual(await execute(main("return 7"), { id: "a" }, new AbortController().signal), {
      result: 7,
    });
  } finally {
    pool.close();
  }
});

Deno.test("internal failure hides unknown errors during execute", async () => {
  class Broken extends CapabilityRegistry {
    override enabled(): never {
      throw new Error("secret");
    }
  }
  const c = await connect({ registry: new Broken() });
  try {
    assert.equal(
      errorOf(await c.call("execute", { source: main("return 1") })),
      "internal failure",
    );
  } finally {
    await c.close();
  }
});
