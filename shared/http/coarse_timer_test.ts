import assert from "node:assert/strict";
import { COARSE_RESOLUTION_MS, CoarseDeadline, coarseTimeout } from "./coarse_timer.ts";
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

Deno.test("coarseTimeout() fires exactly the deadlines left when most of a slot is cancelled", async () => {
  // 500 deadlines due at the same tick (one slot): cancelling all but every 50th (compacting the
  // slot on the way) leaves exactly those to fire, once each, in the order they were set.
  const fired: number[] = [];
  const cancels: (() => void)[] = [];
  let last!: () => void;
  const all = new Promise<void>((resolve) => last = resolve);
  for (let i = 0; i < 500; i++) {
    cancels.push(coarseTimeout(20, () => {
      fired.push(i);
      if (i === 450) last();
    }));
  }
  for (let i = 0; i < 500; i++) if (i % 50 !== 0) cancels[i]();
  for (let i = 0; i < 500; i++) if (i % 50 !== 0) cancels[i](); // twice: harmless
  await all;
  assert.deepEqual(fired, [0, 50, 100, 150, 200, 250, 300, 350, 400, 450]);
  for (const cancel of cancels) cancel(); // after firing: harmless
  let again = false;
  await new Promise<void>((resolve) => coarseTimeout(1, () => resolve(void (again = true))));
  assert.ok(again, "the timer still runs once every deadline of a slot is gone");
});

Deno.test("coarseTimeout() set from a firing callback fires at its own time", async () => {
  const order: string[] = [];
  await new Promise<void>((resolve) => {
    coarseTimeout(1, () => {
      order.push("first");
      coarseTimeout(1, () => {
        order.push("second");
        resolve();
      });
    });
  });
  assert.deepEqual(order, ["first", "second"]);
});

Deno.test("coarseTimeout() fires deadlines set after a slot emptied, once each", async () => {
  // One slot used again and again: each deadline cancelled before the next is set empties it
  // (its places are cleared and reused); the last one, left pending, fires once.
  const fired: number[] = [];
  let last!: () => void;
  const done = new Promise<void>((resolve) => last = resolve);
  for (let i = 0; i < 100; i++) {
    const cancel = coarseTimeout(20, () => {
      fired.push(i);
      last();
    });
    if (i < 99) cancel();
  }
  await done;
  assert.deepEqual(fired, [99]);
});

Deno.test("coarseTimeout() cancelling from a firing callback skips exactly the cancelled ones", async () => {
  // Four deadlines in one slot; the first cancels the second (the others stay), and in a second
  // slot the first cancels all others (the slot is emptied while it fires).
  const fired: string[] = [];
  await new Promise<void>((resolve) => {
    const cancels: (() => void)[] = [];
    cancels.push(coarseTimeout(5, () => {
      fired.push("a");
      cancels[1]();
    }));
    cancels.push(coarseTimeout(5, () => fired.push("b")));
    cancels.push(coarseTimeout(5, () => fired.push("c")));
    cancels.push(coarseTimeout(5, () => {
      fired.push("d");
      resolve();
    }));
  });
  assert.deepEqual(fired, ["a", "c", "d"]);
  fired.length = 0;
  await new Promise<void>((resolve) => {
    const cancels: (() => void)[] = [];
    cancels.push(coarseTimeout(5, () => {
      fired.push("a");
      for (const cancel of cancels.slice(1)) cancel();
      coarseTimeout(1, resolve);
    }));
    cancels.push(coarseTimeout(5, () => fired.push("b")));
    cancels.push(coarseTimeout(5, () => fired.push("c")));
  });
  assert.deepEqual(fired, ["a"]);
});

Deno.test("CoarseDeadline fires its own fire(), once; cancel() and arming again are honoured", async () => {
  class Recorder extends CoarseDeadline {
    calls = 0;
    onFire?: () => void;
    fire(): void {
      this.calls++;
      this.onFire?.();
    }
  }
  const cancelled = new Recorder();
  cancelled.arm(5);
  cancelled.cancel();
  cancelled.cancel(); // twice: harmless
  const rearmed = new Recorder();
  rearmed.arm(60_000);
  rearmed.arm(5); // armed again: only the new time counts
  await new Promise<void>((resolve) => {
    rearmed.onFire = resolve;
  });
  const late = new Recorder(); // a later slot, so the first slot's tick has passed
  await new Promise<void>((resolve) => {
    late.onFire = resolve;
    late.arm(1);
  });
  assert.equal(cancelled.calls, 0);
  assert.equal(rearmed.calls, 1);
  rearmed.cancel(); // after firing: harmless
  assert.equal(late.calls, 1);
});
