/**
 * Two controllers on one host (runner-ctl@a and runner-ctl@b of the template unit): one fake
 * Incus, two scale sets, two owners. Neither adopts, sweeps or counts the other's VMs, across
 * scaling up, scaling down and a restart of one of them (which adopts its own runners only).
 */
import assert from "node:assert/strict";
import { startSimulation } from "../fakes/simulation.ts";
import { type ClockedController, clockedController, waitFor } from "./_test_support.ts";
import { TAG } from "../../services/runner-ctl/incus/instances.ts";

const T0 = 1_000_000;
const retry = { initialMs: 1000, maximumMs: 8000 };

Deno.test("two instances on one Incus never adopt, sweep or count each other's VMs", async () => {
  const sim = await startSimulation({ incus: { agentDelayMs: 5 } });
  const open: ClockedController[] = [];
  const make = async (scaleSet: string, owner: string, minRunners: number) => {
    const x = await clockedController(sim, {
      scaleSet,
      owner,
      minRunners,
      maxRunners: 3,
      bootstrapTimeoutMs: 600_000,
      retry,
    });
    open.push(x);
    return x;
  };
  const owned = (owner: string) =>
    [...sim.incus.instances.values()].filter((i) => i.config[TAG.owner] === owner);
  const ready = (owner: string, n: number) =>
    waitFor(
      `${n} Ready (${owner})`,
      () => owned(owner).filter((i) => i.status === "Ready").length === n,
      10_000,
    );
  const foreign = (x: ClockedController) =>
    x.lines.filter((l) =>
      l.msg === "runner adopted" || (l.msg === "runner removed" && l.reason === "orphan sweep")
    );
  try {
    const a = await make("linux-x64", "runner-ctl-linux-x64", 2);
    const b = await make("linux-arm64", "runner-ctl-linux-arm64", 1);
    // Both scale up on the same Incus, passes interleaved.
    await a.at(T0);
    await b.at(T0);
    await ready("runner-ctl-linux-x64", 2);
    await ready("runner-ctl-linux-arm64", 1);
    for (let t = T0 + 1; t <= T0 + 3; t++) {
      await a.at(t);
      await b.at(t);
    }
    assert.equal(sim.incus.instances.size, 3);
    assert.deepEqual(a.ctl.pool.summary().idle, 2, "a counts its own two");
    assert.deepEqual(b.ctl.pool.summary().idle, 1, "b counts its own one");
    for (const i of owned("runner-ctl-linux-x64")) {
      assert.ok(a.ctl.pool.runners.has(i.name) && !b.ctl.pool.runners.has(i.name));
      assert.equal(i.config[TAG.scaleSet], "linux-x64");
    }
    for (const i of owned("runner-ctl-linux-arm64")) {
      assert.ok(b.ctl.pool.runners.has(i.name) && !a.ctl.pool.runners.has(i.name));
    }
    // b's runner stops (b removes it; it took no job, so b's failure backoff counts it): a's
    // runners are not touched, and a does not count the gap.
    const bRunner = owned("runner-ctl-linux-arm64")[0].name;
    sim.incus.powerOff(bRunner);
    await b.at(T0 + 4);
    await a.at(T0 + 4);
    assert.ok(!sim.incus.instances.has(`default/${bRunner}`), "b removed its stopped runner");
    assert.equal(owned("runner-ctl-linux-x64").length, 2, "a's runners untouched");
    assert.equal(a.ctl.pool.total(), 2);
    // a restarts (a new controller, same owner): it adopts its own two and nothing of b's.
    const aNames = owned("runner-ctl-linux-x64").map((i) => i.name).sort();
    a.close();
    open.splice(open.indexOf(a), 1);
    const a2 = await make("linux-x64", "runner-ctl-linux-x64", 2);
    await b.at(T0 + 4 + retry.initialMs); // b's backoff is over: b replaces its runner
    await ready("runner-ctl-linux-arm64", 1);
    await b.at(T0 + 5 + retry.initialMs);
    await a2.at(T0 + 5 + retry.initialMs);
    const adopted = a2.lines.filter((l) => l.msg === "runner adopted").map((l) => l.runner).sort();
    assert.deepEqual(adopted, aNames);
    assert.equal(a2.lines.filter((l) => l.msg === "runner started").length, 0, "a2 made none");
    assert.equal(a2.ctl.pool.total(), 2);
    assert.equal(b.ctl.pool.total(), 1);
    assert.equal(sim.incus.instances.size, 3);
    assert.deepEqual(foreign(b), [], "b never adopted or swept anything");
    assert.equal(
      a2.lines.filter((l) => l.msg === "runner removed" && l.reason === "orphan sweep").length,
      0,
    );
    assert.equal(sim.github.runners.size, 3, "every registration is still there");
  } finally {
    for (const x of open) x.close();
    await sim.close();
  }
});
