/**
 * A hung Incus operation: the fake cancels (and refuses to cancel) as Incus does; the client
 * cancels an operation still running at `timeouts.incus_operation` and holds its concurrency
 * slot until Incus reports it ended or the grace passes, so no second operation runs beside it;
 * and the controller, a real process with `--incus-operations 1`, gets its runners through a
 * hung create with never more than one operation running on Incus.
 */
import assert from "node:assert/strict";
import { createLogger } from "@svc/shared/log";
import { type FakeIncus, startFakeIncus } from "../fakes/incus/fake_incus.ts";
import { InstanceClient, TAG } from "../../services/runner-ctl/incus/instances.ts";
import { IncusError, IncusTransport } from "../../services/runner-ctl/incus/transport.ts";
import { startController, waitFor, withSimulation } from "./_test_support.ts";

const spec = (name: string) => ({
  name,
  type: "virtual-machine" as const,
  fingerprint: "a".repeat(64),
  config: { [TAG.owner]: "o" },
  devices: {},
});

async function withClient(
  o: { timeoutMs: number; graceMs: number },
  body: (x: {
    fake: FakeIncus;
    t: IncusTransport;
    instances: InstanceClient;
    lines: Record<string, unknown>[];
  }) => Promise<void>,
) {
  const fake = await startFakeIncus({ operationMs: 20 });
  const t = new IncusTransport({ socket: fake.path, project: "default" });
  const lines: Record<string, unknown>[] = [];
  const instances = new InstanceClient({
    transport: t,
    operationTimeoutMs: o.timeoutMs,
    cancelGraceMs: o.graceMs,
    concurrency: 1,
    logger: createLogger({ write: (l) => lines.push(JSON.parse(l)) }),
  });
  try {
    await body({ fake, t, instances, lines });
  } finally {
    t.close();
    await fake.close();
  }
}

const post = (name: string) => ({
  name,
  type: "virtual-machine",
  source: { type: "image", fingerprint: "a".repeat(64) },
  config: {},
});
const opId = (fake: FakeIncus) => [...fake.operations.ops.keys()].at(-1)!;
const cancels = (fake: FakeIncus) => fake.count("DELETE", /^\/1\.0\/operations\//);
const creates = (fake: FakeIncus) =>
  fake.seen.filter((r) => r.method === "POST" && r.path === "/1.0/instances");

Deno.test("the fake cancels an operation, and refuses to, as Incus does", async () => {
  await withClient({ timeoutMs: 10_000, graceMs: 10_000 }, async ({ fake, t }) => {
    const del = (id: string) => t.call("cancel an operation", "DELETE", `/1.0/operations/${id}`);
    const refused = (status: number, text: string) => (e: unknown) =>
      e instanceof IncusError && e.status === status &&
      e.message === `Cannot cancel an operation: ${text}`;
    await assert.rejects(del(crypto.randomUUID()), refused(404, "Operation not found"));
    // may_cancel false (an instance create on Incus 6.0.4)
    fake.operations.hangNext({ description: /Creating/, holdMs: 500, mayCancel: false });
    const slow = t.call("create", "POST", "/1.0/instances", { body: post("a") });
    const op = (await slow).metadata as { id: string; may_cancel: boolean };
    assert.equal(op.may_cancel, false);
    await assert.rejects(del(op.id), refused(400, "This operation can't be cancelled"));
    // Ended (still retained): not running any more.
    await fake.operations.ops.get(op.id)!.done;
    assert.ok(fake.instances.has("default/a"));
    await assert.rejects(del(op.id), refused(400, "Only running operations can be cancelled"));
    // A cancellable one: 200, Cancelling, then Cancelled; its work never happens.
    fake.operations.hangNext({ description: /Creating/, holdMs: 60_000, mayCancel: true });
    const env = await t.call("create", "POST", "/1.0/instances", { body: post("b") });
    const id = (env.metadata as { id: string }).id;
    assert.deepEqual(await del(id), { type: "sync", metadata: {} });
    // Cancelling (104) lasts a millisecond in the fake: on a busy machine the answer to the
    // DELETE may arrive when it is Cancelled (401) already.
    const cancelling = fake.operations.ops.get(id)?.op.status_code;
    assert.ok(cancelling === 104 || cancelling === 401, `Cancelling or Cancelled: ${cancelling}`);
    await fake.operations.ops.get(id)!.done;
    const after = await t.call("read", "GET", `/1.0/operations/${id}`);
    const read = after.metadata as { status: string; status_code: number; err: string };
    assert.deepEqual([read.status, read.status_code, read.err], ["Cancelled", 401, ""]);
    assert.equal(fake.instances.has("default/b"), false);
    await assert.rejects(del(id), refused(400, "Only running operations can be cancelled"));
    assert.equal(fake.operations.running, 0);
  });
});

for (const flavour of ["6.0", "7.x"] as const) {
  Deno.test(`a hung operation Incus will not cancel keeps its slot until it ends (${flavour} wait)`, async () => {
    await withClient({ timeoutMs: 1000, graceMs: 5000 }, async ({ fake, instances, lines }) => {
      fake.operations.flavour = flavour;
      fake.operations.hangNext({ description: /Creating/, holdMs: 2500, mayCancel: false });
      const a = instances.create(spec("a"));
      await waitFor("the first create", () => creates(fake).length === 1);
      const hung = opId(fake);
      const b = instances.create(spec("b"));
      // It ended within the grace: the late success is the create's result.
      await a;
      assert.ok(fake.instances.has("default/a"));
      await b;
      assert.equal(cancels(fake), 1, "one cancel request");
      const cancelAt = fake.seen.find((r) => r.method === "DELETE")!.at;
      assert.ok(creates(fake)[1].at >= cancelAt, "the next operation waited for the slot");
      assert.equal(fake.operations.peakRunning, 1, "never two operations on Incus at once");
      assert.equal(instances.semaphore.peak, 1);
      const warn = lines.find((l) => l.msg === "Incus operation timed out; waiting for it to end");
      assert.equal(warn?.operation, hung);
      assert.equal(
        warn?.cancel,
        "refused: Cannot cancel an operation: This operation can't be cancelled",
      );
      const ended = lines.find((l) => l.msg === "Incus operation ended after its timeout");
      assert.deepEqual([ended?.operation, ended?.outcome], [hung, "success"]);
    });
  });

  Deno.test(`a hung operation Incus can cancel is cancelled, then the next one runs (${flavour} wait)`, async () => {
    await withClient({ timeoutMs: 1000, graceMs: 5000 }, async ({ fake, instances, lines }) => {
      fake.operations.flavour = flavour;
      fake.operations.hangNext({ description: /Creating/, holdMs: 60_000, mayCancel: true });
      const a = instances.create(spec("a"));
      await waitFor("the first create", () => creates(fake).length === 1);
      const hung = opId(fake);
      const b = instances.create(spec("b"));
      await assert.rejects(
        a,
        (e: unknown) =>
          e instanceof IncusError && e.status === 504 &&
          e.message === "Cannot create an instance: the operation timed out and was cancelled",
      );
      await b;
      assert.equal(fake.operations.ops.get(hung)?.op.status, "Cancelled");
      assert.equal(fake.instances.has("default/a"), false, "the cancelled create made nothing");
      assert.ok(fake.instances.has("default/b"));
      assert.equal(fake.operations.peakRunning, 1, "never two operations on Incus at once");
      const warn = lines.find((l) => l.msg === "Incus operation timed out; waiting for it to end");
      assert.equal(warn?.cancel, "requested");
      const ended = lines.find((l) => l.msg === "Incus operation ended after its timeout");
      assert.deepEqual([ended?.operation, ended?.outcome], [hung, "canceled"]);
    });
  });
}

Deno.test("an operation still running after the grace is abandoned, with one error", async () => {
  await withClient({ timeoutMs: 1000, graceMs: 1000 }, async ({ fake, instances, lines }) => {
    fake.operations.hangNext({ description: /Creating/, holdMs: 30_000, mayCancel: false });
    const started = Date.now();
    await assert.rejects(
      instances.create(spec("a")),
      (e: unknown) =>
        e instanceof IncusError && e.status === 504 &&
        e.message === "Cannot create an instance: the operation timed out",
    );
    // The slot was held through the timeout and the grace (whole seconds on the wire).
    assert.ok(Date.now() - started >= 2000, "held for timeout + grace");
    const errors = lines.filter((l) => l.level === "error");
    assert.equal(errors.length, 1);
    assert.equal(
      errors[0].msg,
      "Incus operation abandoned: still running after its grace; its concurrency slot is freed",
    );
    assert.deepEqual([errors[0].timeout_ms, errors[0].grace_ms], [1000, 1000]);
    assert.equal(fake.operations.running, 1, "Incus is still working on it");
  });
});

Deno.test("the controller with --incus-operations 1 gets through a hung create: never two at once", async () => {
  await withSimulation({ github: { jobDurationMs: 200 } }, async (sim) => {
    sim.incus.operations.hangNext({ description: /Creating/, holdMs: 60_000, mayCancel: true });
    const ctl = startController(sim, {
      args: ["--max-runners", "2", "--incus-operations", "1", "--operation-timeout", "1s"],
    });
    try {
      await waitFor("a session", () => sim.github.sessions.size === 1);
      const jobs = [sim.github.queueJob(), sim.github.queueJob()];
      await waitFor("both jobs done", () => jobs.every((j) => j.state === "completed"), 120_000);
      await waitFor("every runner removed", () => sim.owned().length === 0);
    } finally {
      assert.equal(await ctl.stop(), 0, ctl.stderr());
    }
    assert.equal(sim.incus.operations.peakRunning, 1, "never two operations on Incus at once");
    assert.equal(sim.incus.count("DELETE", /^\/1\.0\/operations\//), 1, "the hung one cancelled");
    const ended = ctl.lines.find((l) => l.msg === "Incus operation ended after its timeout");
    assert.equal(ended?.outcome, "canceled");
    const failed = ctl.lines.find((l) => l.msg === "runner failed before taking a job");
    assert.equal(failed?.kind, "start_failed");
    assert.equal(failed?.consecutive_failures, 1);
    assert.ok(ctl.lines.some((l) => l.msg === "runner failure backoff reset"));
    assert.equal(sim.github.runners.size, 0, "no registration left behind");
  });
});
