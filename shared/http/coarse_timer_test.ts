import assert from "node:assert/strict";
import { COARSE_RESOLUTION_MS, coarseTimeout } from "./coarse_timer.ts";
import { nextTurn } from "@svc/testing";

Deno.test("coarseTimeout() fires never early and at most two resolutions late", async () => {
  const waits = [0, 1, COARSE_RESOLUTION_MS - 1, COARSE_RESOLUTION_MS, 25, 60];
  const fired = await Promise.all(waits.map((ms) =>
    new Promise<number>((resolve) => {
      const start = performance.now();
      coarseTimeout(ms, () => resolve(performance.now() - start));
    })
  ));
  for (const [i, ms] of waits.entries()) {
    assert.ok(fired[i] >= ms, `${ms} ms fired after ${fired[i]} ms`);
    // generous for a loaded machine; the bound itself is 2 × resolution + event-loop delay
    assert.ok(fired[i] < ms + 2 * COARSE_RESOLUTION_MS + 40, `${ms} ms fired after ${fired[i]} ms`);
  }
});

Deno.test("coarseTimeout() cancelled does not fire; cancelling twice or after firing is harmless", async () => {
  const calls: string[] = [];
  const cancelA = coarseTimeout(5, () => calls.push("a"));
  const cancelB = coarseTimeout(5, () => calls.push("b"));
  cancelA();
  cancelA();
  // real clock: the coarse timer (the subject) runs on the real clock; wait past its resolution
  await new Promise((r) => setTimeout(r, 5 + 3 * COARSE_RESOLUTION_MS));
  assert.deepEqual(calls, ["b"]);
  cancelB(); // after it fired
  let fired = false;
  await new Promise<void>((resolve) => coarseTimeout(1, () => resolve(void (fired = true))));
  assert.ok(fired, "the shared interval still runs after late cancels");
});

Deno.test("coarseTimeout() keeps firing the others when one throws", async () => {
  const errors: unknown[] = [];
  const onError = (e: ErrorEvent) => {
    e.preventDefault();
    errors.push(e.error);
  };
  globalThis.addEventListener("error", onError);
  try {
    const calls: number[] = [];
    await new Promise<void>((resolve) => {
      coarseTimeout(5, () => {
        throw new Error("first");
      });
      coarseTimeout(5, () => calls.push(2));
      coarseTimeout(6, () => resolve());
    });
    await nextTurn();
    assert.deepEqual(calls, [2]);
    assert.equal((errors[0] as Error)?.message, "first");
  } finally {
    globalThis.removeEventListener("error", onError);
  }
});

Deno.test("coarseTimeout() keeps a process alive only while a deadline is pending", async () => {
  const code = `
    import { coarseTimeout } from ${
    JSON.stringify(new URL("./coarse_timer.ts", import.meta.url).href)
  };
    const start = performance.now();
    const cancel = coarseTimeout(60_000, () => console.log("fired"));
    cancel(); // nothing pending: the program ends now, not in a minute
    coarseTimeout(50, () => console.log("pending fired", performance.now() - start >= 50));
  `;
  const t0 = performance.now();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-config", code],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(new TextDecoder().decode(out.stdout), "pending fired true\n");
  assert.equal(out.code, 0);
  assert.ok(performance.now() - t0 < 30_000, "a cancelled deadline kept the process alive");
});
