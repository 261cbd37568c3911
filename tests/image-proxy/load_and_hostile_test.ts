/**
 * The stream limit under concurrent load, and hostile input: whatever a client sends, no 5xx
 * (other than the limit's 503) and the proxy keeps serving.
 */
import assert from "node:assert/strict";
import { rawRequest, startProxyProcess, startStore } from "./_test_support.ts";

Deno.test("the stream limit holds under concurrent load and frees every slot", async (t) => {
  const store = await startStore();
  await store.put("big.bin", new Uint8Array(8 << 20));
  const max = 8;
  const proxy = await startProxyProcess({
    endpoint: store.s3.endpoint,
    args: ["--proxy.max-streams", String(max)],
  });
  try {
    const round = async (n: number) => {
      const responses = await Promise.all(
        Array.from({ length: n }, () => fetch(proxy.url + "/big.bin")),
      );
      const admitted = responses.filter((r) => r.status === 200);
      const refused = responses.filter((r) => r.status === 503);
      for (const r of refused) {
        assert.equal(r.headers.get("retry-after"), "1");
        assert.equal((await r.json()).code, "stream_limit");
      }
      return { admitted, refused };
    };
    await t.step("at most max_streams downloads at once, the rest refused at once", async () => {
      const { admitted, refused } = await round(30);
      assert.equal(admitted.length, max);
      assert.equal(refused.length, 30 - max);
      // HEAD and health are not downloads: they pass while every slot is taken.
      assert.equal((await fetch(proxy.url + "/big.bin", { method: "HEAD" })).status, 200);
      const health = await fetch(proxy.url + "/healthz");
      assert.equal(health.status, 200);
      await health.body?.cancel();
      // Half complete, half are abandoned by their clients: both free their slots.
      await Promise.all(admitted.map((r, i) => i % 2 ? r.arrayBuffer() : r.body!.cancel()));
    });
    await t.step("slots come back after completion and client aborts", async () => {
      let admitted: Response[] = [];
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        ({ admitted } = await round(max));
        if (admitted.length === max) break;
        await Promise.all(admitted.map((r) => r.body!.cancel()));
        // real clock: between rounds of a retry loop bounded by `deadline` that checks the admitted count
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(admitted.length, max);
      await Promise.all(admitted.map((r) => r.body!.cancel()));
    });
  } finally {
    assert.equal(await proxy.stop(), 0);
    await store.close();
  }
});

Deno.test("hostile requests get 4xx (never 5xx) and the proxy stays up", async () => {
  const store = await startStore();
  const proxy = await startProxyProcess({ endpoint: store.s3.endpoint });
  const port = Number(new URL(proxy.url).port);
  const deepJson = "[".repeat(100_000) + "]".repeat(100_000);
  const cases: [string, string | Uint8Array][] = [
    [
      "invalid Host",
      "GET /streams/v1/index.json HTTP/1.1\r\nHost: \u0001bad host\r\nConnection: close\r\n\r\n",
    ],
    ["no Host", "GET /streams/v1/index.json HTTP/1.1\r\nConnection: close\r\n\r\n"],
    [
      "lower-case method",
      "get /streams/v1/index.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ],
    ["invented method", "FROB / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"],
    [
      "control characters in the path",
      "GET /a\u0007b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ],
    [
      "control character in a header",
      "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\nConnection: close\r\n\r\n",
    ],
    [
      "huge header",
      `GET /x HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(200_000)}\r\nConnection: close\r\n\r\n`,
    ],
    [
      "100 000-deep JSON body on POST",
      `POST /x HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${deepJson.length}\r\nConnection: close\r\n\r\n${deepJson}`,
    ],
    [
      "body on GET",
      `GET /streams/v1/index.json HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello`,
    ],
    [
      "huge Range",
      "GET /streams/v1/index.json HTTP/1.1\r\nHost: x\r\nRange: bytes=" + "9".repeat(5000) +
      "-\r\nConnection: close\r\n\r\n",
    ],
    [
      "huge If-None-Match",
      "GET /streams/v1/index.json HTTP/1.1\r\nHost: x\r\nIf-None-Match: " + '"a",'.repeat(5000) +
      '"b"\r\nConnection: close\r\n\r\n',
    ],
    [
      "absolute-form target",
      "GET http://evil.example/../../etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ],
    ["garbage", "\u0000\u0001\u0002 garbage\r\n\r\n"],
  ];
  try {
    for (const [name, bytes] of cases) {
      const raw = await rawRequest(port, bytes);
      const status = Number(raw.slice(9, 12));
      assert.ok(!(status >= 500), `${name}: answered ${status}`);
    }
    await stalledBody(port);
    const res = await fetch(proxy.url + "/streams/v1/index.json");
    assert.equal(res.status, 200, "still serving");
    await res.arrayBuffer();
  } finally {
    assert.equal(await proxy.stop(), 0);
    await store.close();
  }
});

/** A client that announces a body and never sends it must not hold the proxy up. */
async function stalledBody(port: number) {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(
    new TextEncoder().encode("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nab"),
  );
  const buf = new Uint8Array(4096);
  const n = await conn.read(buf);
  const head = new TextDecoder().decode(buf.subarray(0, n ?? 0));
  assert.match(head, /^HTTP\/1\.1 405 /);
  conn.close();
}

Deno.test("a client that stops reading is cut after the write idle timeout and frees its slot", async () => {
  const store = await startStore();
  await store.put("big.bin", new Uint8Array(64 << 20));
  const proxy = await startProxyProcess({
    endpoint: store.s3.endpoint,
    args: ["--proxy.max-streams", "1", "--proxy.write-idle-timeout", "500ms"],
  });
  const port = Number(new URL(proxy.url).port);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(new TextEncoder().encode("GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n"));
    const head = new Uint8Array(1024);
    await conn.read(head); // the headers (and some body); then this client reads nothing more
    const deadline = Date.now() + 30_000;
    let status = 0;
    while (Date.now() < deadline) {
      const res = await fetch(proxy.url + "/streams/v1/index.json");
      status = res.status;
      await res.body?.cancel();
      if (status === 200) break;
      assert.equal(status, 503, "refused while the stalled download holds the only slot");
      // real clock: poll interval of a loop bounded by its count that checks the status
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(status, 200, "the slot came back");
  } finally {
    conn.close();
    assert.equal(await proxy.stop(), 0);
    await store.close();
  }
  const stalled = proxy.records().find((r) =>
    r.msg === "request completed" && r["error.kind"] === "write_timeout"
  );
  assert.ok(stalled, "logged as write_timeout");
  assert.ok((stalled["http.response.body.size"] as number) < 64 << 20);
});
