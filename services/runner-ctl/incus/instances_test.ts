import assert from "node:assert/strict";
import { IncusError, IncusTransport } from "./transport.ts";
import { InstanceClient, TAG } from "./instances.ts";
import { waitOperation } from "./operation_wait.ts";
import { incusSetup } from "./_test_support.ts";
import { concurrentSteps, waitUntil } from "@svc/testing";

const spec = (name: string, owner = "ctl-a") => ({
  name,
  type: "virtual-machine" as const,
  fingerprint: "a".repeat(64),
  config: { [TAG.owner]: owner, [TAG.scaleSet]: "rs" },
  devices: { root: { type: "disk", path: "/", pool: "default" } },
});

const post = (name: string) => ({
  name,
  type: "virtual-machine",
  source: { type: "image", fingerprint: "a".repeat(64) },
  config: { [TAG.owner]: "ctl-a" },
});

Deno.test("instance lifecycle over the Unix socket", async (t) => {
  const x = await incusSetup();
  try {
    await t.step("create, inject, start, Ready, stop, delete", async () => {
      await x.instances.create(spec("r1"));
      const created = await x.instances.get("r1");
      assert.equal(created?.status, "Stopped");
      assert.equal(created?.config[TAG.owner], "ctl-a");
      await x.instances.patchConfig("r1", { [TAG.jitConfig]: "secret-jit" });
      await x.instances.setState("r1", "start");
      assert.equal((await x.instances.state("r1")).processes, -1, "agent not up yet");
      await waitUntil(async () => (await x.instances.get("r1"))?.statusCode === 113, {
        what: "the agent to report Ready",
      });
      assert.equal((await x.instances.get("r1"))?.status, "Ready");
      await x.instances.patchConfig("r1", { [TAG.jitConfig]: "" });
      assert.equal((await x.instances.get("r1"))?.config[TAG.jitConfig], undefined);
      await assert.rejects(
        x.instances.delete("r1"),
        (e: unknown) =>
          e instanceof IncusError && e.status === 400 && /Instance is running/.test(e.message),
      );
      await x.instances.setState("r1", "stop");
      const log = new TextDecoder().decode(await x.instances.consoleLog("r1"));
      assert.match(log, /Linux version/);
      assert.match(log, /Power down/);
      await x.instances.delete("r1");
      assert.equal(await x.instances.get("r1"), undefined);
    });
    await t.step("create errors arrive inside the operation", async () => {
      await x.instances.create(spec("dup"));
      await assert.rejects(x.instances.create(spec("dup")), /UNIQUE constraint failed/);
      await assert.rejects(
        x.instances.create({ ...spec("noimg"), fingerprint: "b".repeat(64) }),
        /Image not provided for instance creation/,
      );
      await assert.rejects(
        x.instances.create({ ...spec("bad-"), name: "-bad" }),
        /Invalid instance name/,
      );
    });
    await t.step("listOwned filters by the owner tag", async () => {
      await x.instances.create(spec("other", "ctl-b"));
      const mine = await x.instances.listOwned("ctl-a");
      assert.deepEqual(mine.map((i) => i.name).sort(), ["dup"]);
      assert.deepEqual((await x.instances.listOwned("ctl-b")).map((i) => i.name), ["other"]);
      assert.deepEqual(await x.instances.listOwned('ctl-"c'), []);
      const listCall = x.fake.seen.findLast((r) =>
        r.path === "/1.0/instances" && r.method === "GET"
      );
      assert.ok(listCall);
    });
    await t.step("a missing instance is undefined; its console is an error", async () => {
      assert.equal(await x.instances.get("nope"), undefined);
      await assert.rejects(
        x.instances.consoleLog("nope"),
        (e: unknown) => e instanceof IncusError && e.status === 404,
      );
    });
  } finally {
    await x.close();
  }
});

Deno.test("operation waits in both flavours", async (t) => {
  // Each flavour has its own fake and waits on its 1.5 s operations: both at once.
  const flavours = ["6.0", "7.x"] as const;
  const named = { concurrency: 2, name: (f: string) => `${f}: success, failure and timeout` };
  await concurrentSteps(t, flavours, named, async (flavour) => {
    const x = await incusSetup({ operationMs: 1500 });
    x.fake.operations.flavour = flavour;
    try {
      const op = async (body: unknown) => {
        const env = await x.transport.call("create", "POST", "/1.0/instances", { body });
        return (env.metadata as { id: string }).id;
      };
      const ok = await op(post("w1"));
      assert.deepEqual((await waitOperation(x.transport, ok, 10_000)).kind, "success");
      const bad = await op(post("w1"));
      const out = await waitOperation(x.transport, bad, 10_000);
      assert.equal(out.kind, "failure");
      assert.match((out as { error: string }).error, /UNIQUE constraint/);
      const slow = await op(post("w2"));
      assert.equal((await waitOperation(x.transport, slow, 500)).kind, "timeout");
      assert.equal((await waitOperation(x.transport, slow, 10_000)).kind, "success");
    } finally {
      await x.close();
    }
  });
  await t.step("a vanished operation is unknown (404 after retention)", async () => {
    const x = await incusSetup({ retainMs: 0 });
    try {
      const env = await x.transport.call("create", "POST", "/1.0/instances", { body: post("v1") });
      // real clock: the fake forgets the finished operation on its own timer (retention 0 ms)
      await new Promise((r) => setTimeout(r, 100));
      const out = await waitOperation(x.transport, (env.metadata as { id: string }).id, 5000);
      assert.equal(out.kind, "unknown");
      assert.ok(await x.instances.get("v1"), "the instance is read instead");
    } finally {
      await x.close();
    }
  });
});

Deno.test("per-operation timeout and parallelism bound", async (t) => {
  await t.step("an operation longer than timeouts.incus_operation fails with 504", async () => {
    // 3 s: longer than the 1 s wait plus the 1 s cancel grace (whole seconds on the wire).
    const x = await incusSetup({ operationMs: 3000, operationTimeoutMs: 1000 });
    try {
      await assert.rejects(
        x.instances.create(spec("slow")),
        (e: unknown) => e instanceof IncusError && e.status === 504,
      );
    } finally {
      // The fake's operation outlives the timeout; it ends before the fake closes.
      await waitUntil(() => x.fake.operations.running === 0, { what: "the slow operation" });
      await x.close();
    }
  });
  for (const limit of [1, 2, 3]) {
    await t.step(`at most ${limit} operation(s) in flight`, async () => {
      const x = await incusSetup({ operationMs: 50, concurrency: limit });
      try {
        await Promise.all([1, 2, 3, 4, 5, 6].map((n) => x.instances.create(spec(`p${n}`))));
        assert.equal(x.instances.semaphore.peak, limit);
        assert.equal((await x.instances.listOwned("ctl-a")).length, 6);
      } finally {
        await x.close();
      }
    });
  }
});

/** A client over a scripted Incus that records `METHOD /path` of every request. */
function scriptedIncus(answer: (path: string, method: string) => unknown) {
  const seen: string[] = [];
  const transport = new IncusTransport({
    socket: "/nonexistent",
    project: "default",
    fetch: (input, init) => {
      const path = new URL(String(input)).pathname;
      seen.push(`${init?.method} ${path}`);
      return Promise.resolve(Response.json(answer(path, init?.method ?? "GET")));
    },
  });
  const instances = new InstanceClient({ transport, operationTimeoutMs: 1000, concurrency: 1 });
  return { seen, instances };
}

const OP_ID = "6f1c9b2a-3e4d-4f5a-8b6c-7d8e9f0a1b2c";
const notAName = (e: unknown) =>
  e instanceof IncusError && e.status === 400 && /not a valid name/.test(e.message);

Deno.test("an instance name that is not a host name never reaches an Incus path", async () => {
  const { seen, instances } = scriptedIncus(() => ({ type: "sync", metadata: {} }));
  for (const name of ["..", ".", "", "a/../..", "%2e%2e", "a\0b", "x".repeat(64)]) {
    await assert.rejects(instances.get(name), notAName, name);
    await assert.rejects(instances.state(name), notAName, name);
    await assert.rejects(instances.patchConfig(name, { a: "" }), notAName, name);
    await assert.rejects(instances.setState(name, "stop"), notAName, name);
    await assert.rejects(instances.delete(name), notAName, name);
    await assert.rejects(instances.consoleLog(name), notAName, name);
  }
  assert.deepEqual(seen, [], "no request was made");
});

Deno.test("an operation id from Incus that is not a UUID is never waited on or cancelled", async () => {
  for (const id of ["..", "../instances/victim", "%2e%2e", ""]) {
    const { seen, instances } = scriptedIncus((path) =>
      path === "/1.0/instances"
        ? { type: "async", metadata: { id, status_code: 103 } }
        : { type: "sync", metadata: { status_code: 200 } }
    );
    await assert.rejects(instances.create(spec("r1")), notAName, id);
    assert.deepEqual(seen, ["POST /1.0/instances"], `only the create was sent for ${id}`);
  }
  const { seen, instances } = scriptedIncus((path) =>
    path === "/1.0/instances"
      ? { type: "async", metadata: { id: OP_ID, status_code: 103 } }
      : { type: "sync", metadata: { id: OP_ID, status_code: 200 } }
  );
  await instances.create(spec("r1"));
  assert.deepEqual(seen, ["POST /1.0/instances", `GET /1.0/operations/${OP_ID}/wait`]);
});

Deno.test("listOwned leaves out instances whose names Incus could not have made", async () => {
  const owned = (name: string) => ({
    name,
    status: "Running",
    status_code: 103,
    config: { [TAG.owner]: "ctl-a" },
  });
  const { instances } = scriptedIncus(() => ({
    type: "sync",
    metadata: ["runner-0a1b2c3d", "..", ".", "../../etc/cron.d/x", "a/b", "%2e%2e", "x\0"].map(
      owned,
    ),
  }));
  assert.deepEqual((await instances.listOwned("ctl-a")).map((i) => i.name), ["runner-0a1b2c3d"]);
});
