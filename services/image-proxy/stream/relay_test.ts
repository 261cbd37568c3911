import assert from "node:assert/strict";
import { relay, type RelayOutcome } from "./relay.ts";

function source(chunks: number[], then: "close" | "stall" | "error" = "close") {
  let i = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (i < chunks.length) return c.enqueue(new Uint8Array(chunks[i++]).fill(i));
      if (then === "close") return c.close();
      if (then === "error") return c.error(new Error("connection reset"));
      return new Promise(() => {}); // stalls forever (until cancelled)
    },
    cancel() {
      cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { stream, cancelled: () => cancelled };
}

function relayed(
  chunks: number[],
  then: "close" | "stall" | "error",
  opts: { expectedBytes?: number; upstreamIdleMs?: number; writeIdleMs?: number } = {},
) {
  const src = source(chunks, then);
  let aborted = 0;
  const ends: { outcome: RelayOutcome; bytes: number }[] = [];
  let resolveEnd!: () => void;
  const ended = new Promise<void>((r) => resolveEnd = r);
  const body = relay(src.stream, {
    expectedBytes: opts.expectedBytes ?? chunks.reduce((a, b) => a + b, 0),
    upstreamIdleMs: opts.upstreamIdleMs ?? 5_000,
    writeIdleMs: opts.writeIdleMs ?? 5_000,
    abortUpstream: () => aborted++,
    onEnd: (r) => {
      ends.push(r);
      resolveEnd();
    },
  });
  return { body, ends, ended, aborted: () => aborted, upstreamCancelled: src.cancelled };
}

async function drain(body: ReadableStream<Uint8Array>): Promise<number> {
  let n = 0;
  for await (const chunk of body) n += chunk.byteLength;
  return n;
}

Deno.test("relay() passes every byte through and ends complete", async () => {
  const r = relayed([3, 4, 5], "close");
  assert.equal(await drain(r.body), 12);
  await r.ended;
  assert.deepEqual(r.ends, [{ outcome: "complete", bytes: 12, error: undefined }]);
  assert.equal(r.aborted(), 0);
});

Deno.test("relay() of an empty object ends complete", async () => {
  const r = relayed([], "close");
  assert.equal(await drain(r.body), 0);
  assert.equal(r.ends[0].outcome, "complete");
});

Deno.test("relay() ends the body early when storage stalls past upstreamIdleMs", async () => {
  const r = relayed([4], "stall", { expectedBytes: 100, upstreamIdleMs: 50 });
  assert.equal(await drain(r.body), 4, "the body ends short of Content-Length");
  assert.equal(r.ends[0].outcome, "upstream_timeout");
  assert.equal(r.aborted(), 1);
  assert.ok(r.upstreamCancelled());
});

Deno.test("relay() ends the body early when storage fails mid-way", async () => {
  const r = relayed([4, 4], "error", { expectedBytes: 100 });
  assert.equal(await drain(r.body), 8);
  assert.equal(r.ends[0].outcome, "upstream_error");
  assert.equal(r.aborted(), 1);
});

Deno.test("relay() treats a body shorter or longer than announced as a failure", async (t) => {
  await t.step("shorter", async () => {
    const r = relayed([4, 4], "close", { expectedBytes: 9 });
    assert.equal(await drain(r.body), 8);
    assert.equal(r.ends[0].outcome, "length_mismatch");
  });
  await t.step("longer: the extra chunk is never sent", async () => {
    const r = relayed([4, 4], "close", { expectedBytes: 7 });
    assert.equal(await drain(r.body), 4);
    assert.equal(r.ends[0].outcome, "length_mismatch");
    assert.equal(r.aborted(), 1);
  });
  await t.step("exact", async () => {
    const r = relayed([4, 4], "close", { expectedBytes: 8 });
    assert.equal(await drain(r.body), 8);
    assert.equal(r.ends[0].outcome, "complete");
  });
});

Deno.test("relay() ends the transfer when the client takes nothing for writeIdleMs", async () => {
  const r = relayed([4, 4, 4], "close", { writeIdleMs: 50 });
  const reader = r.body.getReader();
  assert.equal((await reader.read()).value?.byteLength, 4);
  await r.ended; // the client never reads again
  assert.equal(r.ends[0].outcome, "write_timeout");
  assert.equal(r.ends[0].bytes, 4);
  assert.equal(r.aborted(), 1);
  // What was already read ahead may still go out; nothing more is read, and the body ends.
  let rest = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    rest += chunk.value.byteLength;
  }
  assert.ok(rest <= 8);
});

Deno.test("relay() releases storage when the client goes away", async () => {
  const r = relayed([4, 4, 4], "stall");
  const reader = r.body.getReader();
  await reader.read();
  await reader.cancel("client closed the connection");
  assert.equal(r.ends.length, 1);
  assert.equal(r.ends[0].outcome, "client_abort");
  assert.equal(r.aborted(), 1);
  assert.ok(r.upstreamCancelled());
});

Deno.test("relay() reports the end once, whatever happens after", async () => {
  const r = relayed([4], "stall", { expectedBytes: 8, upstreamIdleMs: 30, writeIdleMs: 30 });
  const reader = r.body.getReader();
  await reader.read();
  await reader.read();
  await reader.cancel().catch(() => {});
  await new Promise((res) => setTimeout(res, 80));
  assert.equal(r.ends.length, 1);
});
