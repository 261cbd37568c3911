import assert from "node:assert/strict";
import { createLifecycle, ShutdownStarted } from "./lifecycle.ts";
import { delay } from "./delay.ts";
import { evalUntilSigterm, nextTurn } from "@svc/testing";

Deno.test("lifecycle", async (t) => {
  await t.step("shutdown() aborts the signal once, with the cause", async () => {
    const lifecycle = createLifecycle({ handleSignals: false });
    let aborts = 0;
    lifecycle.signal.addEventListener("abort", () => aborts++);
    assert.equal(lifecycle.signal.aborted, false);
    lifecycle.shutdown("deploy");
    lifecycle.shutdown("again");
    assert.equal(aborts, 1);
    assert.ok(lifecycle.signal.reason instanceof ShutdownStarted);
    assert.equal(lifecycle.signal.reason.name, "AbortError");
    assert.equal(await lifecycle.untilShutdown(), "deploy");
  });

  await t.step("tasks get a signal that the shutdown aborts; stopTasks awaits them", async () => {
    const lifecycle = createLifecycle({ handleSignals: false });
    const order: string[] = [];
    lifecycle.spawn("loop", async (signal) => {
      await delay(60_000, { signal }).catch(() => order.push("aborted"));
      // real clock: a cleanup that takes a while, which stopTasks() must await
      await delay(10);
      order.push("cleaned up");
    });
    lifecycle.shutdown();
    order.push("shutdown started");
    await nextTurn();
    const report = await lifecycle.stopTasks({ timeoutMs: 10_000 });
    order.push("stopped");
    assert.deepEqual(order, ["shutdown started", "aborted", "cleaned up", "stopped"]);
    assert.deepEqual(report, { stopped: ["loop"], failed: [], abandoned: [] });
  });

  await t.step("stopTasks() starts the shutdown when nothing else has", async () => {
    const lifecycle = createLifecycle({ handleSignals: false });
    lifecycle.spawn("wait", (signal) => delay(60_000, { signal }));
    const report = await lifecycle.stopTasks({ timeoutMs: 5_000 });
    assert.ok(lifecycle.signal.aborted);
    assert.equal(await lifecycle.untilShutdown(), "requested");
    assert.deepEqual(report.stopped, ["wait"]);
  });

  await t.step("a task's failure reaches onTaskError, which may start the shutdown", async () => {
    const failed: string[] = [];
    const lifecycle = createLifecycle({
      handleSignals: false,
      onTaskError: (name) => {
        failed.push(name);
        lifecycle.shutdown(`task ${name} failed`);
      },
    });
    lifecycle.spawn("reconcile", () => Promise.reject(new Error("github unreachable")));
    assert.equal(await lifecycle.untilShutdown(), "task reconcile failed");
    assert.deepEqual(failed, ["reconcile"]);
    assert.deepEqual((await lifecycle.stopTasks()).failed, ["reconcile"]);
  });

  await t.step("a task spawned after the shutdown started gets an aborted signal", async () => {
    const lifecycle = createLifecycle({ handleSignals: false });
    lifecycle.shutdown();
    let aborted: boolean | undefined;
    lifecycle.spawn("late", (signal) => {
      aborted = signal.aborted;
    });
    await lifecycle.stopTasks();
    assert.equal(aborted, true);
  });
});

Deno.test("a SIGTERM starts the lifecycle's shutdown; tasks stop and the process exits 0", async () => {
  const code = `
    import { createLifecycle, runEvery } from "${new URL("./mod.ts", import.meta.url)}";
    const lifecycle = createLifecycle();
    lifecycle.spawn("tick", (signal) => runEvery(() => {}, { intervalMs: 10, signal }));
    console.log("started");
    const cause = await lifecycle.untilShutdown();
    const report = await lifecycle.stopTasks({ timeoutMs: 5000 });
    lifecycle.close();
    console.log(JSON.stringify({ cause, report }));
  `;
  const { code: status, out } = await evalUntilSigterm(code, "started");
  assert.equal(status, 0);
  const last = JSON.parse(out.trim().split("\n").at(-1)!);
  assert.deepEqual(last, {
    cause: "SIGTERM",
    report: { stopped: ["tick"], failed: [], abandoned: [] },
  });
});

/**
 * A child whose lifecycle stops (by SIGTERM, or by code) and closes, then waits for its stdin to
 * end; the parent sends the stop signals again in between, as `deno task`, a wrapper or a
 * supervisor does after a Ctrl-C.
 */
async function repeatAfterClose(startedBy: "SIGTERM" | "code", repeats: Deno.Signal[]) {
  const code = `
    import { createLifecycle } from "${new URL("./mod.ts", import.meta.url)}";
    const lifecycle = createLifecycle();
    console.log("ready");
    if (${JSON.stringify(startedBy)} === "code") lifecycle.shutdown("requested");
    const cause = await lifecycle.untilShutdown();
    lifecycle.close();
    console.log("closed " + cause);
    for await (const _ of Deno.stdin.readable) { /* until the parent closes it */ }
    console.log("exit");
  `;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", code],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  const until = async (marker: string) => {
    while (!out.includes(marker)) {
      const { done, value } = await reader.read();
      if (done) break;
      out += value;
    }
  };
  await until("ready");
  if (startedBy === "SIGTERM") child.kill("SIGTERM");
  await until("closed");
  // The repeats reach the child before its stdin ends: with the default action, a signal ends
  // the process as it is delivered, before it can read the end of its input.
  for (const signal of repeats) child.kill(signal);
  await child.stdin.close();
  await until("\u0000"); // to the end of its output
  return { status: await child.status, out };
}

Deno.test("after a signal-started shutdown, repeated SIGINT/SIGTERM never end the process: it exits with its own code", async () => {
  const { status, out } = await repeatAfterClose("SIGTERM", ["SIGINT", "SIGTERM"]);
  assert.equal(out, "ready\nclosed SIGTERM\nexit\n");
  assert.deepEqual([status.code, status.signal], [0, null]);
});

Deno.test("a lifecycle closed after a shutdown by code leaves the signals' default action: SIGINT ends the process", async () => {
  const { status, out } = await repeatAfterClose("code", ["SIGINT"]);
  assert.equal(out, "ready\nclosed requested\n");
  assert.deepEqual([status.code, status.signal], [130, "SIGINT"]);
});
