import assert from "node:assert/strict";
import { silentLogger } from "@svc/shared/log";
import { runListener } from "./listener.ts";
import type { JobMessage, Statistics } from "./types.ts";
import { githubSetup, TEST_PAT } from "./_test_support.ts";
import { ActionsClient } from "./actions.ts";
import { ActionsAuth } from "./auth.ts";
import { parseConfigUrl } from "./config_url.ts";
import { waitUntil } from "@svc/testing";

function waitFor(what: string, cond: () => boolean, timeoutMs = 20_000): Promise<void> {
  return waitUntil(cond, { what, timeoutMs });
}

async function withListener(
  opts: Parameters<typeof githubSetup>[0] & { pollTimeoutMs?: number },
  body: (ctx: {
    g: Awaited<ReturnType<typeof githubSetup>>;
    jobs: JobMessage[];
    stats: Statistics[];
    setIds: number[];
  }) => Promise<void>,
) {
  const g = await githubSetup(opts);
  const jobs: JobMessage[] = [];
  const stats: Statistics[] = [];
  const setIds: number[] = [];
  const ac = new AbortController();
  const done = runListener({
    client: g.actions,
    http: g.http,
    logger: silentLogger(),
    scaleSet: "rs",
    runnerGroup: "default",
    ownerName: "host-1",
    maxCapacity: () => 7,
    pollTimeoutMs: opts.pollTimeoutMs ?? 0,
    signal: ac.signal,
    handler: {
      onScaleSet: (s) => setIds.push(s.id),
      onStatistics: (s) => stats.push(s),
      onJob: (j) => {
        jobs.push(j);
      },
    },
  });
  try {
    await waitFor("a session", () => g.fake.sessions.size === 1);
    await body({ g, jobs, stats, setIds });
  } finally {
    ac.abort();
    await done;
    await g.close();
  }
  assert.equal(g.fake.sessions.size, 0, "the session is deleted on shutdown");
}

const types = (jobs: JobMessage[]) => jobs.map((j) => j.messageType);

Deno.test("listener: acquires, handles, acknowledges", async () => {
  await withListener({}, async ({ g, jobs, stats }) => {
    const job = g.fake.queueJob();
    await waitFor("JobAssigned", () => types(jobs).includes("JobAssigned"));
    assert.deepEqual(types(jobs).slice(0, 2), ["JobAvailable", "JobAssigned"]);
    assert.equal(g.fake.jobs.get(job.runnerRequestId)?.state, "assigned");
    await waitFor("acks", () => g.fake.messages.every((m) => m.acked));
    assert.equal(stats.at(-1)?.totalAssignedJobs, 1);
    assert.ok(g.fake.count("DELETE", /^\/queue\/[\w-]+\/\d+$/) >= 2);
  });
});

Deno.test("listener survives every fault switch", async (t) => {
  await t.step("5xx, 429 with Retry-After and BOM bodies on the queue", async () => {
    await withListener({}, async ({ g, jobs }) => {
      g.fake.faults.bom = true;
      g.fake.faults.failNext(2, 503, /^\/queue\//);
      g.fake.faults.failNext(1, 429, /^\/queue\//, 0);
      g.fake.faults.failNext(1, 500, /acquirejobs$/);
      g.fake.queueJob();
      await waitFor("JobAssigned", () => types(jobs).includes("JobAssigned"));
    });
  });
  await t.step("401 on an expired queue token: refresh the session, retry", async () => {
    await withListener({}, async ({ g, jobs }) => {
      await waitFor("a poll", () => g.fake.count("GET", /^\/queue\//) >= 1);
      g.fake.expireQueueTokens();
      g.fake.queueJob();
      await waitFor("JobAssigned", () => types(jobs).includes("JobAssigned"));
      assert.ok(g.fake.count("PATCH", /sessions\/[\w-]+$/) >= 1);
    });
  });
  await t.step("404 on refresh (evicted session): open a new session", async () => {
    await withListener({}, async ({ g, jobs }) => {
      await waitFor("a poll", () => g.fake.count("GET", /^\/queue\//) >= 1);
      g.fake.evictSessions();
      await waitFor("a new session", () => g.fake.sessions.size === 1);
      g.fake.queueJob();
      await waitFor("JobAssigned", () => types(jobs).includes("JobAssigned"));
      assert.equal(g.fake.count("POST", /sessions$/), 2);
    });
  });
  await t.step("deleted scale set: get-or-create again, new session", async () => {
    await withListener({}, async ({ g, jobs, setIds }) => {
      await waitFor("a poll", () => g.fake.count("GET", /^\/queue\//) >= 1);
      g.fake.deleteScaleSet();
      await waitFor("a new scale set", () => setIds.length === 2 && g.fake.sessions.size === 1);
      assert.notEqual(setIds[0], setIds[1]);
      g.fake.queueJob();
      await waitFor("JobAssigned", () => types(jobs).includes("JobAssigned"));
    });
  });
  await t.step("empty messageQueueUrl: the scale set is checked again", async () => {
    await withListener({}, async ({ g, jobs }) => {
      g.fake.faults.emptyQueueUrl = 1;
      g.fake.evictSessions();
      await waitFor(
        "a usable session",
        () =>
          g.fake.sessions.size === 1 && g.fake.faults.emptyQueueUrl === 0 &&
          g.fake.count("POST", /sessions$/) >= 3,
      );
      g.fake.queueJob();
      await waitFor("JobAssigned", () => types(jobs).includes("JobAssigned"));
    });
  });
  await t.step("redelivery: the message is handled again, acquire is idempotent", async () => {
    await withListener({}, async ({ g, jobs }) => {
      g.fake.queueJob();
      await waitFor(
        "acks",
        () => types(jobs).includes("JobAssigned") && g.fake.messages.every((m) => m.acked),
      );
      const before = jobs.length;
      g.fake.redeliverLast();
      g.fake.queueJob();
      await waitFor("more messages", () => jobs.length >= before + 2);
      assert.equal(
        jobs.filter((j) => j.messageType === "JobAssigned" && j.runnerRequestId === 1).length,
        2,
        "the last acknowledged message came again",
      );
    });
  });
  await t.step("admin 401 mid-run: the auth chain runs again", async () => {
    await withListener({}, async ({ g, jobs }) => {
      g.fake.expireAdminTokens();
      g.fake.evictSessions();
      g.fake.queueJob();
      await waitFor("JobAssigned", () => types(jobs).includes("JobAssigned"));
      assert.ok(g.auth.fetches >= 2);
    });
  });
});

Deno.test("listener renews a queue token close to its expiry before polling", async () => {
  await withListener({ queueTokenTtlMs: 30_000 }, async ({ g, jobs }) => {
    g.fake.queueJob();
    await waitFor("JobAssigned", () => types(jobs).includes("JobAssigned"));
    assert.ok(g.fake.count("PATCH", /sessions\/[\w-]+$/) >= 1, "refreshed without a 401");
  });
});

Deno.test("listener retries a 409 session conflict until the stale session clears", async () => {
  const g = await githubSetup();
  g.fake.faults.staleSessionAttempts = 3;
  const ac = new AbortController();
  const done = runListener({
    client: g.actions,
    http: g.http,
    logger: silentLogger(),
    scaleSet: "rs",
    runnerGroup: "default",
    ownerName: "h",
    maxCapacity: () => 1,
    pollTimeoutMs: 0,
    signal: ac.signal,
    sleep: g.http.sleep,
    handler: { onScaleSet() {}, onStatistics() {}, onJob() {} },
  });
  try {
    await waitFor("a session", () => g.fake.sessions.size === 1);
    assert.equal(g.fake.count("POST", /sessions$/), 4);
    assert.deepEqual(g.sleeps.slice(0, 3), [1, 2, 4], "backoff doubles from retry.initial");
  } finally {
    ac.abort();
    await done;
    await g.close();
  }
});

Deno.test("listener sends X-ScaleSetMaxCapacity and lastMessageId", async () => {
  const g = await githubSetup();
  const seen: string[] = [];
  const inner = g.http.fetch;
  g.http.fetch = (input, init) => {
    const u = String(input);
    if (u.includes("/queue/") && init?.method === "GET") {
      seen.push(`${new Headers(init.headers).get("X-ScaleSetMaxCapacity")} ${new URL(u).search}`);
    }
    return inner(input, init);
  };
  const ac = new AbortController();
  const jobs: string[] = [];
  const done = runListener({
    client: g.actions,
    http: g.http,
    logger: silentLogger(),
    scaleSet: "rs",
    runnerGroup: "default",
    ownerName: "h",
    maxCapacity: () => 5,
    pollTimeoutMs: 0,
    signal: ac.signal,
    handler: { onScaleSet() {}, onStatistics() {}, onJob: (j) => void jobs.push(j.messageType) },
  });
  try {
    await waitFor("a session", () => g.fake.sessions.size === 1);
    g.fake.queueJob();
    await waitFor("two messages", () => jobs.length >= 2);
    await waitFor("a later poll", () => seen.some((s) => s.includes("lastMessageId=2")));
    assert.equal(seen[0], "5 ");
  } finally {
    ac.abort();
    await done;
    await g.close();
  }
});

Deno.test("message_poll_timeout cuts a poll the service does not wake (no-wake mode)", async () => {
  // The fake holds a poll 4 s (a long poll scaled down for the test); the listener's own timeout of
  // 500 ms must cut it well before that, and without one the poll is held to its end.
  for (const pollTimeoutMs of [0, 500]) {
    await withListener({ longPollMs: 4_000, pollTimeoutMs }, async ({ g, jobs }) => {
      g.fake.faults.noWake = true;
      await waitFor("a poll", () => g.fake.count("GET", /^\/queue\//) >= 1);
      const polls = g.fake.count("GET", /^\/queue\//);
      const job = g.fake.queueJob(); // JobAvailable wakes the poll
      await waitFor("JobAssigned", () => types(jobs).includes("JobAssigned"));
      const jit = await g.actions.generateJitConfig(1, `rs-${pollTimeoutMs}`);
      await waitFor("the next poll", () => g.fake.count("GET", /^\/queue\//) > polls);
      g.fake.runnerConnect(jit.encodedJITConfig); // JobStarted does not wake it
      const t0 = Date.now();
      await waitFor("JobStarted", () => types(jobs).includes("JobStarted"), 30_000);
      const latency = Date.now() - t0;
      assert.equal(g.fake.jobs.get(job.runnerRequestId)?.state, "running");
      if (pollTimeoutMs === 0) assert.ok(latency > 2000, `upstream poll holds (${latency} ms)`);
      else assert.ok(latency < 3000, `cut at 500 ms (${latency} ms)`);
      assert.ok(g.fake.count("GET", /^\/queue\//) > polls);
    });
  }
});

Deno.test("listener acknowledges a message before its job callbacks run (after acquiring)", async () => {
  const g = await githubSetup();
  const acksSeen: number[] = [];
  const acquiresSeen: number[] = [];
  const ac = new AbortController();
  const done = runListener({
    client: g.actions,
    http: g.http,
    logger: silentLogger(),
    scaleSet: "rs",
    runnerGroup: "default",
    ownerName: "host-1",
    maxCapacity: () => 7,
    pollTimeoutMs: 0,
    signal: ac.signal,
    handler: {
      onScaleSet() {},
      onStatistics() {},
      onJob: (j) => {
        if (j.messageType !== "JobAvailable") return;
        acksSeen.push(g.fake.count("DELETE", /^\/queue\/[\w-]+\/\d+$/));
        acquiresSeen.push(g.fake.count("POST", /acquirejobs$/));
      },
    },
  });
  try {
    await waitFor("a session", () => g.fake.sessions.size === 1);
    g.fake.queueJob();
    await waitFor("the JobAvailable callback", () => acksSeen.length === 1);
    assert.equal(acquiresSeen[0], 1, "the job was acquired before the callback");
    assert.equal(acksSeen[0], 1, "its message was acknowledged before the callback");
  } finally {
    ac.abort();
    await done;
    await g.close();
  }
});

Deno.test("listener deletes a session it could not close before opening a new one", async () => {
  await withListener({}, async ({ g }) => {
    const first = [...g.fake.sessions.keys()][0];
    // The queue fails past its retries, and so does the session delete that follows: the old
    // session stays alive on the service, and a new one under the same owner would be a 409.
    g.fake.faults.failNext(5, 503, /^\/queue\//);
    g.fake.faults.failNext(5, 503, /\/sessions\/[\w-]+$/);
    await waitFor(
      "a new session in place of the old one",
      () => g.fake.sessions.size === 1 && !g.fake.sessions.has(first),
    );
    const second = [...g.fake.sessions.keys()][0];
    await waitFor(
      "a poll on the new session",
      () => g.fake.count("GET", new RegExp(`^/queue/${second}$`)) > 0,
    );
    assert.equal(g.fake.faults.pending(), 0);
  });
});

/**
 * Runs a listener (one runner, no handler work) whose HTTP goes through `fetch`, a wrapper of the
 * fake's: what a misbehaving service or network looks like to the listener.
 */
function listenThrough(
  g: Awaited<ReturnType<typeof githubSetup>>,
  fetch: typeof g.http.fetch,
  o: { signal: AbortSignal; closeTimeoutMs: number },
): Promise<void> {
  const http = { ...g.http, fetch };
  const auth = new ActionsAuth({
    configUrl: parseConfigUrl(g.fake.configUrl),
    credentials: { kind: "token", token: TEST_PAT },
    http,
  });
  return runListener({
    client: new ActionsClient(auth, http),
    http,
    logger: silentLogger(),
    scaleSet: "rs",
    runnerGroup: "default",
    ownerName: "host-1",
    maxCapacity: () => 1,
    pollTimeoutMs: 0,
    closeTimeoutMs: o.closeTimeoutMs,
    signal: o.signal,
    handler: { onScaleSet() {}, onStatistics() {}, onJob() {} },
  });
}

Deno.test("listener bounds the session delete at shutdown by closeTimeoutMs", async () => {
  const g = await githubSetup();
  let deleteAborted: unknown;
  const ac = new AbortController();
  // The service stops answering session deletes (it hangs until the client gives up).
  const done = listenThrough(g, (input, init) => {
    if (init?.method === "DELETE" && /\/sessions\/[\w-]+\?/.test(String(input))) {
      return new Promise<Response>((_, reject) =>
        init.signal?.addEventListener("abort", () => {
          deleteAborted = init.signal?.reason;
          reject(init.signal?.reason);
        })
      );
    }
    return g.http.fetch(input, init);
  }, { signal: ac.signal, closeTimeoutMs: 200 });
  try {
    await waitFor("a session", () => g.fake.sessions.size === 1);
    const started = Date.now();
    ac.abort();
    await done;
    // Generous: the bound is 0.2 s; without it the delete would hang for 10 s.
    assert.ok(Date.now() - started < 5_000, "shutdown did not wait for the hung delete");
    assert.ok(deleteAborted !== undefined, "the delete was given up");
  } finally {
    await g.close();
  }
});

Deno.test("listener deletes a session whose create the shutdown overtook", async () => {
  const g = await githubSetup();
  const ac = new AbortController();
  let creates = 0;
  try {
    // The service makes the session, and shutdown starts before its answer arrives: as a real
    // fetch, the call fails with the abort when the signal it was given is aborted by then.
    await listenThrough(g, async (input, init) => {
      const res = await g.http.fetch(input, init);
      if (init?.method === "POST" && /\/sessions\?/.test(String(input)) && ++creates === 1) {
        ac.abort();
        // real clock: a fetch still finishing when the abort lands (its response arrived first)
        await new Promise((r) => setTimeout(r, 20));
        init.signal?.throwIfAborted();
      }
      return res;
    }, { signal: ac.signal, closeTimeoutMs: 2_000 });
    assert.equal(creates, 1, "no session is opened after shutdown started");
    assert.equal(g.fake.sessions.size, 0, "the session made during shutdown was deleted");
  } finally {
    await g.close();
  }
});
