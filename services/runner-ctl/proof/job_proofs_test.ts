import assert from "node:assert/strict";
import { createLogger } from "@svc/shared/log";
import type { JobMessage } from "../github/types.ts";
import { verifyProof } from "./envelope.ts";
import { JobProofQueue, PROOF_CONFIG_KEY, type ProofCommitter } from "./job_proofs.ts";
import { importPublicKeyPem, importSigningKeyPem } from "./keys.ts";
import { generatePemPair } from "./_test_support.ts";
import { waitUntil } from "@svc/testing";

/** Instance config in memory (the end-to-end test uses the fake Incus server). */
function memoryInstances(names: string[]) {
  const config = new Map(names.map((n) => [n, {} as Record<string, string>]));
  let patches = 0;
  let failNext = false;
  const committer: ProofCommitter = {
    get: (name) =>
      Promise.resolve(config.has(name) ? { config: { ...config.get(name) } } : undefined),
    patchConfig: (name, c) => {
      if (failNext) {
        failNext = false;
        return Promise.reject(new Error("incus down"));
      }
      patches++;
      Object.assign(config.get(name)!, c);
      return Promise.resolve();
    },
  };
  return { committer, config, patches: () => patches, failOnce: () => (failNext = true) };
}

function started(id: number, runner: string, extra: Partial<JobMessage> = {}): JobMessage {
  return {
    messageType: "JobStarted",
    runnerRequestId: id,
    repositoryName: "repo",
    ownerName: "org",
    jobWorkflowRef: "org/repo/.github/workflows/ci.yml@refs/heads/main",
    jobDisplayName: "build",
    workflowRunId: 1000 + id,
    eventName: "push",
    queueTime: "2026-11-23T10:00:00.0000000Z",
    runnerAssignTime: "2026-11-23T10:00:01Z",
    runnerId: 50 + id,
    runnerName: runner,
    ...extra,
  };
}

async function setup(
  maxRunners: number,
  names: string[],
  mem = memoryInstances(names),
) {
  const { privatePem, publicPem } = await generatePemPair();
  const queue = new JobProofQueue({
    hostId: "host-a",
    key: await importSigningKeyPem(privatePem),
    maxRunners,
    instances: mem.committer,
    project: "runners",
    scaleSetName: "linux",
    scaleSetId: () => 7,
    logger: createLogger({ write: () => {} }),
    now: () => Date.parse("2026-11-23T10:00:02Z"),
  });
  return { queue, mem, key: await importPublicKeyPem(publicPem) };
}

async function drain(queue: JobProofQueue) {
  const ac = new AbortController();
  const run = queue.run(ac.signal);
  await waitUntil(() => queue.pending === 0, { what: "the queue to empty" });
  // real clock: the last item leaves `pending` before its write completes; the queue shows no more
  await new Promise((r) => setTimeout(r, 20));
  ac.abort();
  await run;
}

Deno.test("JobProofQueue", async (t) => {
  await t.step("signs a JobStarted and commits a proof that verifies", async () => {
    const { queue, mem, key } = await setup(1, ["r1"]);
    assert.equal(queue.offer(started(1, "r1"), "r1"), true);
    await drain(queue);
    const envelope = mem.config.get("r1")![PROOF_CONFIG_KEY];
    const { payload } = await verifyProof(new TextEncoder().encode(envelope), {
      key,
      expectedHostId: "host-a",
    });
    assert.deepEqual(payload, {
      version: 1,
      "host_id": "host-a",
      "scale_set": { id: 7, name: "linux" },
      runner: { id: 51, name: "r1" },
      instance: { project: "runners", name: "r1" },
      job: {
        "runner_request_id": 1,
        repository: "org/repo",
        "workflow_ref": "org/repo/.github/workflows/ci.yml@refs/heads/main",
        "workflow_run_id": 1001,
        "job_display_name": "build",
        "event_name": "push",
      },
      times: {
        "queued_at": "2026-11-23T10:00:00.0000000Z",
        "assigned_at": "2026-11-23T10:00:01Z",
        "signed_at": "2026-11-23T10:00:02.000Z",
      },
    });
  });
  await t.step("capacity is max(1, max_runners): a full queue drops, never blocks", async () => {
    for (const [max, cap] of [[0, 1], [1, 1], [3, 3]]) {
      const names = ["a", "b", "c", "d"];
      const { queue } = await setup(max, names);
      assert.equal(queue.capacity, cap);
      const accepted = names.map((n, i) => queue.offer(started(i + 1, n), n));
      assert.deepEqual(accepted, names.map((_, i) => i < cap));
    }
  });
  await t.step("malformed events produce no proof and do not throw", async () => {
    const { queue, mem } = await setup(4, ["r1"]);
    const bad: Partial<JobMessage>[] = [
      { messageType: "JobCompleted" },
      { runnerId: undefined },
      { runnerName: "other" },
      { ownerName: undefined },
      { queueTime: "yesterday" },
      { runnerAssignTime: "2026-11-23T10:00:01+01:00" },
      { workflowRunId: -1 },
      { repositoryName: "a/b" },
      { runnerRequestId: 1.5 },
    ];
    for (const extra of bad) assert.equal(queue.offer(started(1, "r1", extra), "r1"), false);
    assert.equal(queue.offer(null as unknown as JobMessage, "r1"), false);
    await drain(queue);
    assert.equal(mem.patches(), 0);
  });
  await t.step("redelivery: the same job is signed once, and a held proof is kept", async () => {
    const { queue, mem } = await setup(2, ["r1"]);
    assert.equal(queue.offer(started(1, "r1"), "r1"), true);
    assert.equal(queue.offer(started(1, "r1"), "r1"), false);
    await drain(queue);
    const first = mem.config.get("r1")![PROOF_CONFIG_KEY];
    assert.equal(queue.offer(started(1, "r1"), "r1"), false);
    // After a restart (a new queue, nothing remembered) the redelivered job finds the committed
    // proof on the instance and keeps it.
    const { queue: restarted } = await setup(2, [], mem);
    assert.equal(restarted.offer(started(1, "r1"), "r1"), true);
    await drain(restarted);
    assert.equal(mem.patches(), 1);
    assert.equal(mem.config.get("r1")![PROOF_CONFIG_KEY], first);
  });
  await t.step("a failed commit can be retried by a redelivery", async () => {
    const { queue, mem } = await setup(2, ["r1"]);
    mem.failOnce();
    queue.offer(started(1, "r1"), "r1");
    await drain(queue);
    assert.equal(mem.config.get("r1")![PROOF_CONFIG_KEY], undefined);
    assert.equal(queue.offer(started(1, "r1"), "r1"), true);
    await drain(queue);
    assert.ok(mem.config.get("r1")![PROOF_CONFIG_KEY]);
  });
});
