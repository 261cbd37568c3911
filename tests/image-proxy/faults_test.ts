/**
 * Storage failures end to end: a fault-injecting TCP proxy between the image proxy and s3rver
 * stalls, resets, answers 503, trickles bytes or stops mid-body; a store that rejects the
 * credentials answers 502. The proxy retries before answering and never answers 5xx for what
 * the client did.
 */
import assert from "node:assert/strict";
import { faultsFor, freePort, startProxyProcess, startStore } from "./_test_support.ts";

async function codeOf(res: Response): Promise<string> {
  return (await res.json()).code;
}

Deno.test("storage faults map to 503, 504 and 502, and broken bodies end the connection", async (t) => {
  const store = await startStore();
  const faults = await faultsFor(store);
  const big = new Uint8Array(256 * 1024).map((_, i) => i * 7);
  await store.put("big.bin", big);
  const proxy = await startProxyProcess({
    endpoint: faults.endpoint,
    args: ["--proxy.upstream-idle-timeout", "400ms", "--proxy.readiness-interval", "1h"],
  });
  const url = proxy.url + "/big.bin";
  try {
    await t.step(
      "connection resets, after retries: 503 unavailable with Retry-After: 1",
      async () => {
        faults.mode = "reset";
        const before = faults.requests.length;
        const res = await fetch(url);
        assert.equal(res.status, 503);
        assert.equal(res.headers.get("retry-after"), "1");
        assert.equal(await codeOf(res), "unavailable");
        assert.equal(faults.requests.length - before, 3, "three attempts of the metadata read");
      },
    );
    await t.step("503 SlowDown from storage, after retries: 503 unavailable", async () => {
      faults.mode = "http503";
      const res = await fetch(url);
      assert.equal(res.status, 503);
      assert.equal(res.headers.get("retry-after"), "1");
      assert.equal(await codeOf(res), "unavailable");
    });
    await t.step("no answer within the upstream idle timeout, after retries: 504", async () => {
      faults.mode = "stall";
      const res = await fetch(url);
      assert.equal(res.status, 504);
      assert.equal(await codeOf(res), "deadline_exceeded");
    });
    await t.step("slow but steady reads complete", async () => {
      faults.mode = "slow";
      faults.slow = { chunkBytes: 16 * 1024, pauseMs: 20 };
      const res = await fetch(url);
      assert.equal(res.status, 200);
      assert.deepEqual(new Uint8Array(await res.arrayBuffer()), big);
    });
    await t.step(
      "a body that stalls mid-way is cut: the client sees a truncated transfer",
      async () => {
        faults.mode = "stall_body";
        faults.stallAfterBytes = 64 * 1024;
        const res = await fetch(url);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("content-length"), String(big.byteLength));
        await assert.rejects(res.arrayBuffer(), "the body must not end normally");
      },
    );
    await t.step("HEAD and health stay fine while the store recovers", async () => {
      faults.mode = "pass";
      assert.equal((await fetch(url, { method: "HEAD" })).status, 200);
      const res = await fetch(proxy.url + "/healthz");
      assert.deepEqual(await res.json(), { status: "ok" });
    });
  } finally {
    assert.equal(await proxy.stop(), 0);
    await faults.close();
    await store.close();
  }
  const kinds = proxy.records().filter((r) => r.msg === "request completed").map((r) =>
    r["error.kind"]
  );
  assert.deepEqual(kinds.filter(Boolean), [
    "unavailable",
    "unavailable",
    "deadline_exceeded",
    "upstream_timeout",
  ]);
});

Deno.test("a store that rejects the proxy's credentials answers 502 unauthorized_upstream", async () => {
  const store = await startStore();
  const proxy = await startProxyProcess({
    endpoint: store.s3.endpoint,
    env: { AWS_SECRET_ACCESS_KEY: "not-the-secret" },
    waitReady: false,
  });
  try {
    for (const path of ["/streams/v1/index.json", "/missing"]) {
      const res = await fetch(proxy.url + path);
      assert.equal(res.status, 502, path);
      assert.equal(await codeOf(res), "unauthorized_upstream");
    }
    const head = await fetch(proxy.url + "/streams/v1/index.json", { method: "HEAD" });
    assert.equal(head.status, 502);
    await proxy.until((r) => r.body.reason === "s3_misconfigured");
  } finally {
    assert.equal(await proxy.stop(), 0);
    await store.close();
  }
  assert.ok(!proxy.output().includes("not-the-secret"), "the secret is never printed");
});

Deno.test("a store that is down answers 503 unavailable and the proxy still starts", async () => {
  // Nothing listens there: the store is down (no store process needs starting to show it).
  const endpoint = `http://127.0.0.1:${await freePort()}`;
  const proxy = await startProxyProcess({ endpoint, waitReady: false });
  try {
    const res = await fetch(proxy.url + "/streams/v1/index.json");
    assert.equal(res.status, 503);
    assert.equal(await codeOf(res), "unavailable");
    await proxy.until((r) => r.body.reason === "s3_unavailable");
    assert.equal((await fetch(proxy.url + "/healthz")).status, 200);
  } finally {
    assert.equal(await proxy.stop(), 0);
  }
});

Deno.test("an object replaced between its metadata and body reads is served whole, never spliced", async () => {
  const store = await startStore();
  const faults = await faultsFor(store);
  const v1 = new Uint8Array(300_000).fill(1);
  const v2 = new Uint8Array(200_000).fill(2);
  await store.put("swap.bin", v1);
  const proxy = await startProxyProcess({ endpoint: faults.endpoint });
  let swapped = false;
  faults.beforeRequest = async (line) => {
    if (!swapped && line.startsWith("GET ") && line.includes("swap.bin")) {
      swapped = true;
      await store.put("swap.bin", v2); // after the proxy's HEAD, before its GET reaches storage
    }
  };
  try {
    // A conditional GET reads metadata first (a plain GET is one storage request).
    const res = await fetch(proxy.url + "/swap.bin", { headers: { "if-none-match": '"old"' } });
    assert.equal(res.status, 200);
    const got = new Uint8Array(await res.arrayBuffer());
    assert.ok(swapped, "the object was replaced mid-request");
    assert.equal(res.headers.get("content-length"), String(v2.byteLength));
    assert.deepEqual(got, v2, "one version, whole");
    const heads = faults.requests.filter((l) => l.startsWith("HEAD ") && l.includes("swap.bin"));
    assert.equal(heads.length, 2, "metadata read again after the replacement");
  } finally {
    assert.equal(await proxy.stop(), 0);
    await faults.close();
    await store.close();
  }
});
