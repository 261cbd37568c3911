/**
 * Readiness transitions and shutdown end to end: each not-ready reason of the contract's readiness
 * table, staleness, `draining` during the shutdown delay while serving continues, and the drain
 * of downloads in flight (exit 0 when clean, 1 when the grace ran out).
 */
import assert from "node:assert/strict";
import { BUCKET, faultsFor, startProxyProcess, startStore } from "./_test_support.ts";
import { DeleteObjectCommand } from "@aws-sdk/client-s3";
import { waitUntil } from "@svc/testing";

function transitions(records: Record<string, unknown>[]) {
  return records.filter((r) => r.msg === "readiness changed").map((r) =>
    r.ready ? "ready" : r.reason
  );
}

Deno.test("readiness walks the contract's states, each change logged", async (t) => {
  const store = await startStore();
  const faults = await faultsFor(store);
  faults.mode = "stall";
  const proxy = await startProxyProcess({
    endpoint: faults.endpoint,
    waitReady: false,
    args: [
      "--proxy.readiness-interval",
      "1s",
      "--proxy.readiness-staleness",
      "3s",
      "--proxy.upstream-idle-timeout",
      "5s",
      "--proxy.shutdown-delay",
      "1500ms",
    ],
  });
  try {
    await t.step("starting: listening before storage answers, /healthz already 200", async () => {
      assert.deepEqual(await proxy.readyz(), {
        status: 503,
        body: { status: "not_ready", reason: "starting" },
      });
      assert.equal((await fetch(proxy.url + "/healthz")).status, 200);
    });
    await t.step("ready after the first successful probe", async () => {
      faults.mode = "pass";
      await proxy.until((r) => r.status === 200);
      assert.deepEqual((await proxy.readyz()).body, { status: "ready" });
    });
    await t.step("catalog_missing when index.json goes away", async () => {
      await store.client.send(
        new DeleteObjectCommand({ Bucket: BUCKET, Key: "mirror/streams/v1/index.json" }),
      );
      await proxy.until((r) => r.body.reason === "catalog_missing");
      await store.put("streams/v1/index.json", '{"format":"index:1.0","index":{}}');
      await proxy.until((r) => r.status === 200);
    });
    await t.step("s3_unavailable when storage fails", async () => {
      faults.mode = "http503";
      await proxy.until((r) => r.body.reason === "s3_unavailable");
      faults.mode = "pass";
      await proxy.until((r) => r.status === 200);
    });
    await t.step("a probe that hangs makes the proxy not ready", async () => {
      faults.mode = "stall"; // each probe is bounded by the interval, then counts as failed
      await proxy.until((r) => r.status === 503, 10_000);
      assert.equal((await proxy.readyz()).body.reason, "s3_unavailable");
      faults.mode = "pass";
      await proxy.until((r) => r.status === 200, 15_000);
    });
    await t.step("draining after SIGTERM while serving continues for the delay", async () => {
      const stopping = proxy.stop("SIGTERM");
      await proxy.until((r) => r.body.reason === "draining", 5_000);
      const res = await fetch(proxy.url + "/streams/v1/index.json");
      assert.equal(res.status, 200, "objects are still served during the delay");
      await res.arrayBuffer();
      assert.equal((await fetch(proxy.url + "/healthz")).status, 200);
      assert.equal(await stopping, 0);
    });
  } finally {
    await proxy.stop("SIGKILL").catch(() => {});
    await faults.close();
    await store.close();
  }
  const seen = transitions(proxy.records());
  for (const state of ["ready", "catalog_missing", "s3_unavailable", "draining"]) {
    assert.ok(seen.includes(state), `logged ${state}: ${seen}`);
  }
  const msgs = proxy.records().map((r) => r.msg);
  for (
    const msg of ["server_starting", "server_listening", "shutdown_started", "shutdown_completed"]
  ) {
    assert.ok(msgs.includes(msg), msg);
  }
});

// The storage client loads after the first answer, or on its own when no request comes
// (docs/image-proxy.md#readiness-and-shutdown): readiness never waits for a request.
Deno.test("ready without any request: the storage client loads on its own", async () => {
  const store = await startStore();
  const proxy = await startProxyProcess({
    endpoint: store.s3.endpoint,
    waitReady: false,
    healthPath: null,
  });
  try {
    await waitUntil(() => transitions(proxy.records()).includes("ready"), {
      what: "readiness with no request sent",
    });
    assert.equal(proxy.records().filter((r) => r.msg === "request completed").length, 0);
  } finally {
    assert.equal(await proxy.stop(), 0);
    await store.close();
  }
});

Deno.test("an object read as the first request loads the storage client and waits for it", async () => {
  const store = await startStore();
  await store.put("first.txt", "first bytes");
  const proxy = await startProxyProcess({
    endpoint: store.s3.endpoint,
    waitReady: false,
    healthPath: null,
  });
  try {
    const res = await fetch(proxy.url + "/first.txt");
    assert.equal(res.status, 200);
    assert.equal(await res.text(), "first bytes");
    const requests = () => proxy.records().filter((r) => r.msg === "request completed");
    await waitUntil(() => requests().length > 0, { what: "the request record" });
    assert.deepEqual(requests().map((r) => [r["http.route"], r["http.response.status_code"]]), [
      ["object", 200],
    ]);
  } finally {
    assert.equal(await proxy.stop(), 0);
    await store.close();
  }
});

Deno.test("s3_misconfigured when the bucket does not exist", async () => {
  const store = await startStore();
  const proxy = await startProxyProcess({
    endpoint: store.s3.endpoint,
    waitReady: false,
    args: ["--bucket", "no-such-bucket"],
  });
  try {
    await proxy.until((r) => r.body.reason === "s3_misconfigured");
  } finally {
    assert.equal(await proxy.stop(), 0);
    await store.close();
  }
});

Deno.test("SIGTERM drains downloads in flight, then exits 0", async () => {
  const store = await startStore();
  const faults = await faultsFor(store);
  const big = new Uint8Array(1 << 20).map((_, i) => i);
  await store.put("big.bin", big);
  const proxy = await startProxyProcess({
    endpoint: faults.endpoint,
    args: ["--proxy.shutdown-delay", "300ms", "--proxy.shutdown-grace", "20s"],
  });
  faults.mode = "slow";
  faults.slow = { chunkBytes: 64 * 1024, pauseMs: 100 }; // ≈ 1.6 s for the object
  try {
    const downloads = [1, 2, 3].map(() =>
      fetch(proxy.url + "/big.bin").then(async (r) => new Uint8Array(await r.arrayBuffer()))
    );
    // real clock: the downloads (1.6 s each) are under way before the signal
    await new Promise((r) => setTimeout(r, 300));
    const code = proxy.stop("SIGTERM");
    // real clock: past the 300 ms shutdown delay (the subject)
    await new Promise((r) => setTimeout(r, 700)); // past the delay, downloads still running
    const refused = await fetch(proxy.url + "/streams/v1/index.json", {
      headers: { "x-request-id": "late-1" },
    });
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("retry-after"), "1");
    assert.equal(refused.headers.get("x-request-id"), "late-1");
    assert.deepEqual(await refused.json(), { code: "unavailable", request_id: "late-1" });
    for (const got of await Promise.all(downloads)) assert.deepEqual(got, big);
    assert.equal(await code, 0);
  } finally {
    await faults.close();
    await store.close();
  }
  const msgs = proxy.records().map((r) => r.msg);
  assert.ok(msgs.includes("shutdown_completed"));
  assert.ok(!msgs.includes("shutdown_forced"));
});

Deno.test("a drain that outlasts the grace is cut: shutdown_forced, exit 1", async () => {
  const store = await startStore();
  const faults = await faultsFor(store);
  await store.put("big.bin", new Uint8Array(1 << 20));
  const proxy = await startProxyProcess({
    endpoint: faults.endpoint,
    args: ["--proxy.shutdown-delay", "0s", "--proxy.shutdown-grace", "300ms"],
  });
  faults.mode = "slow";
  faults.slow = { chunkBytes: 16 * 1024, pauseMs: 200 };
  try {
    const download = fetch(proxy.url + "/big.bin").then((r) => r.arrayBuffer()).then(
      () => "complete",
      () => "cut",
    );
    // real clock: the download is under way before the signal
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await proxy.stop("SIGTERM"), 1);
    assert.equal(await download, "cut", "the cut download does not end normally");
  } finally {
    await faults.close();
    await store.close();
  }
  assert.ok(proxy.records().some((r) => r.msg === "shutdown_forced"));
});
