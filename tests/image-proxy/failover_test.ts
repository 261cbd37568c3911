/**
 * Read failover end to end: two signature-checking s3rver stores, a fault proxy in front of the
 * primary, the proxy process in its development permission set with `--secondary.*`. The primary
 * stopped before a request and during one, the breaker's probe bringing it back, a 404 on the
 * primary, readiness naming the degraded store, and the request record naming the store.
 */
import assert from "node:assert/strict";
import { faultsFor, type ProxyProcess, startProxyProcess, startStore } from "./_test_support.ts";
import { BUCKET } from "./_test_support.ts";

function recordOf(proxy: ProxyProcess, id: string) {
  return proxy.records().find((r) => r.msg === "request completed" && r.request_id === id);
}

/** The record of request `id`, once written (after its body is over). */
async function storeOf(proxy: ProxyProcess, id: string): Promise<unknown> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const record = recordOf(proxy, id);
    if (record) return record["imgproxy.store"];
    assert.ok(Date.now() < deadline, `no record of ${id}`);
    // real clock: the record follows the body's end in the child process's output
    await new Promise((r) => setTimeout(r, 20));
  }
}

Deno.test("read failover: the second store answers while the primary is down, never both in one answer", async (t) => {
  const primaryStore = await startStore();
  const secondaryStore = await startStore();
  const faults = await faultsFor(primaryStore);
  const bigP = new Uint8Array(3 * 1024 * 1024).map((_, i) => (i * 7) & 0xff);
  const bigS = new Uint8Array(3 * 1024 * 1024).map((_, i) => (i * 13 + 1) & 0xff);
  await primaryStore.put("images/big.bin", bigP);
  await secondaryStore.put("images/big.bin", bigS);
  await primaryStore.put("images/who.txt", "primary");
  await secondaryStore.put("images/who.txt", "secondary");
  await secondaryStore.put("images/only-secondary.txt", "s");
  const second = new URL(secondaryStore.s3.endpoint);
  const proxy = await startProxyProcess({
    endpoint: faults.endpoint,
    extraHosts: [second.host],
    args: [
      "--secondary.bucket",
      BUCKET,
      "--secondary.region",
      "us-east-1",
      "--secondary.endpoint",
      secondaryStore.s3.endpoint,
      "--secondary.force-path-style",
      "--failover.failures",
      "1",
      "--failover.probe-interval",
      "100ms",
      "--proxy.upstream-idle-timeout",
      "500ms",
    ],
  });
  let n = 0;
  const get = async (path: string) => {
    const id = `fo-${++n}`;
    const res = await fetch(proxy.url + path, { headers: { "x-request-id": id } });
    return { res, id };
  };
  try {
    await t.step("healthy: the primary answers; /readyz ready, nothing degraded", async () => {
      const { res, id } = await get("/images/who.txt");
      assert.equal(await res.text(), "primary");
      assert.equal(await storeOf(proxy, id), "primary");
      assert.deepEqual((await proxy.readyz()).body, { status: "ready" });
    });
    await t.step("a 404 on the primary is a 404, not a read of the secondary", async () => {
      const { res, id } = await get("/images/only-secondary.txt");
      assert.equal(res.status, 404);
      assert.equal((await res.json()).code, "not_found");
      assert.equal(await storeOf(proxy, id), "primary");
    });
    await t.step("the primary stopped before a request: the secondary answers it", async () => {
      faults.mode = "reset";
      const { res, id } = await get("/images/who.txt");
      assert.equal(res.status, 200);
      assert.equal(await res.text(), "secondary");
      assert.equal(await storeOf(proxy, id), "secondary");
      const ranged = await fetch(proxy.url + "/images/big.bin", {
        headers: { range: "bytes=100-199" },
      });
      assert.equal(ranged.status, 206);
      assert.deepEqual(new Uint8Array(await ranged.arrayBuffer()), bigS.subarray(100, 200));
      await proxy.until((r) => r.status === 200 && r.body.degraded === "primary");
      assert.deepEqual((await proxy.readyz()).body, {
        status: "ready",
        degraded: "primary",
        reason: "s3_unavailable",
      });
      const skipped = proxy.records().find((r) => r.msg === "primary store skipped");
      assert.equal(skipped?.component, "failover");
    });
    await t.step("the breaker's probe brings the primary back", async () => {
      faults.mode = "pass";
      const deadline = Date.now() + 20_000;
      for (;;) {
        const { res, id } = await get("/images/who.txt");
        const body = await res.text();
        const store = await storeOf(proxy, id);
        assert.equal(body, store); // each answer from one store, named by its record
        if (store === "primary") break;
        assert.ok(Date.now() < deadline, "the primary never came back");
      }
      assert.ok(proxy.records().some((r) => r.msg === "primary store restored"));
      await proxy.until((r) => r.status === 200 && r.body.degraded === undefined);
    });
    await t.step(
      "the primary stopped mid-body: the answer ends short, the next goes to the secondary",
      async () => {
        // The primary lets 1 MiB through (some of the proxy's 256 KiB relay chunks), then holds
        // the rest until it stops: so the stop lands mid-body. Passing all of it, the 3 MiB could
        // sit whole in the socket buffers before the stop and the answer end complete.
        faults.stallAfterBytes = 1024 * 1024;
        faults.mode = "stall_body";
        const { res, id } = await get("/images/big.bin");
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("content-length"), String(bigP.byteLength));
        const reader = res.body!.getReader();
        const parts: Uint8Array[] = [];
        const first = await reader.read(); // bytes of the primary have reached the client
        assert.ok(!first.done);
        parts.push(first.value.slice());
        await faults.close(); // the primary stops: its connections close, new ones are refused
        await assert.rejects(async () => {
          for (;;) {
            const next = await reader.read();
            if (next.done) break;
            parts.push(next.value.slice());
          }
        });
        const got = new Uint8Array(parts.reduce((s, p) => s + p.byteLength, 0));
        parts.reduce((at, p) => (got.set(p, at), at + p.byteLength), 0);
        assert.ok(got.byteLength > 0 && got.byteLength < bigP.byteLength, `${got.byteLength}`);
        assert.deepEqual(got, bigP.subarray(0, got.byteLength)); // the primary's bytes only
        assert.equal(await storeOf(proxy, id), "primary");
        const next = await get("/images/big.bin");
        assert.deepEqual(new Uint8Array(await next.res.arrayBuffer()), bigS);
        assert.equal(await storeOf(proxy, next.id), "secondary");
      },
    );
    await t.step("both stores down: not ready, the primary's reason", async () => {
      await secondaryStore.close();
      await proxy.until((r) => r.status === 503);
      assert.deepEqual((await proxy.readyz()).body, {
        status: "not_ready",
        reason: "s3_unavailable",
      });
    });
  } finally {
    await proxy.stop();
    await faults.close().catch(() => {});
    await primaryStore.close();
    await secondaryStore.close().catch(() => {});
  }
});
