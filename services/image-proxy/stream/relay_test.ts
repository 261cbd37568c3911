import assert from "node:assert/strict";
import { relay, type RelayOutcome } from "./relay.ts";

/** Storage bodies come as byte streams (Deno's fetch) or as plain streams of chunks. */
type SourceKind = "bytes" | "chunks";
const KINDS: SourceKind[] = ["bytes", "chunks"];

function source(
  chunks: number[],
  then: "close" | "stall" | "error" = "close",
  kind: SourceKind = "chunks",
) {
  let i = 0;
  let cancelled = false;
  const pull = (c: ReadableStreamDefaultController<Uint8Array> | ReadableByteStreamController) => {
    if (i < chunks.length) return c.enqueue(new Uint8Array(chunks[i++]).fill(i));
    if (then === "close") {
      c.close();
      (c as ReadableByteStreamController).byobRequest?.respond(0);
      return;
    }
    if (then === "error") return c.error(new Error("connection reset"));
    return new Promise<void>(() => {}); // stalls forever (until cancelled)
  };
  const cancel = () => {
    cancelled = true;
  };
  const stream = kind === "bytes"
    ? new ReadableStream({ type: "bytes", pull, cancel })
    : new ReadableStream<Uint8Array>({ pull, cancel }, { highWaterMark: 0 });
  return { stream: stream as ReadableStream<Uint8Array>, cancelled: () => cancelled };
}

function relayed(
  chunks: number[],
  then: "close" | "stall" | "error",
  opts: {
    expectedBytes?: number;
    upstreamIdleMs?: number;
    writeIdleMs?: number;
    kind?: SourceKind;
    chunkBytes?: number;
    freeTakenChunks?: boolean;
  } = {},
) {
  const src = source(chunks, then, opts.kind);
  let aborted = 0;
  const ends: { outcome: RelayOutcome; bytes: number }[] = [];
  let resolveEnd!: () => void;
  const ended = new Promise<void>((r) => resolveEnd = r);
  const body = relay(src.stream, {
    expectedBytes: opts.expectedBytes ?? chunks.reduce((a, b) => a + b, 0),
    upstreamIdleMs: opts.upstreamIdleMs ?? 5_000,
    writeIdleMs: opts.writeIdleMs ?? 5_000,
    // Chunks as large as the source's, so both kinds of source behave alike below.
    chunkBytes: opts.chunkBytes ?? 4,
    freeTakenChunks: opts.freeTakenChunks,
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

/** A test run against both kinds of storage body. */
function eachKind(name: string, fn: (kind: SourceKind) => Promise<void>) {
  Deno.test(name, async (t) => {
    for (const kind of KINDS) await t.step(`${kind} source`, () => fn(kind));
  });
}

eachKind("relay() passes every byte through and ends complete", async (kind) => {
  const r = relayed([3, 4, 5], "close", { kind });
  assert.equal(await drain(r.body), 12);
  await r.ended;
  assert.deepEqual(r.ends, [{ outcome: "complete", bytes: 12, error: undefined }]);
  assert.equal(r.aborted(), 0);
});

eachKind("relay() of an empty object ends complete", async (kind) => {
  const r = relayed([], "close", { kind });
  assert.equal(await drain(r.body), 0);
  assert.equal(r.ends[0].outcome, "complete");
});

eachKind("relay() ends the body early when storage stalls past upstreamIdleMs", async (kind) => {
  const r = relayed([4], "stall", { expectedBytes: 100, upstreamIdleMs: 50, kind });
  assert.equal(await drain(r.body), 4, "the body ends short of Content-Length");
  assert.equal(r.ends[0].outcome, "upstream_timeout");
  assert.equal(r.aborted(), 1);
  assert.ok(r.upstreamCancelled());
});

eachKind("relay() ends the body early when storage fails mid-way", async (kind) => {
  const r = relayed([4, 4], "error", { expectedBytes: 100, kind });
  assert.equal(await drain(r.body), 8);
  assert.equal(r.ends[0].outcome, "upstream_error");
  assert.equal(r.aborted(), 1);
});

eachKind("relay() treats a body shorter or longer than announced as a failure", async (kind) => {
  // shorter
  let r = relayed([4, 4], "close", { expectedBytes: 9, kind });
  assert.equal(await drain(r.body), 8);
  assert.equal(r.ends[0].outcome, "length_mismatch");
  // longer: the extra chunk is never sent
  r = relayed([4, 4], "close", { expectedBytes: 7, kind });
  assert.equal(await drain(r.body), 4);
  assert.equal(r.ends[0].outcome, "length_mismatch");
  assert.equal(r.aborted(), 1);
  // one byte too many, right at the end
  r = relayed([4, 4, 1], "close", { expectedBytes: 8, kind });
  assert.ok(await drain(r.body) <= 8);
  assert.equal(r.ends[0].outcome, "length_mismatch");
  // exact
  r = relayed([4, 4], "close", { expectedBytes: 8, kind });
  assert.equal(await drain(r.body), 8);
  assert.equal(r.ends[0].outcome, "complete");
});

eachKind(
  "relay() ends the transfer when the client takes nothing for writeIdleMs",
  async (kind) => {
    const r = relayed([4, 4, 4], "close", { writeIdleMs: 50, kind });
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
  },
);

eachKind("relay() releases storage when the client goes away", async (kind) => {
  const r = relayed([4, 4, 4], "stall", { kind });
  const reader = r.body.getReader();
  await reader.read();
  await reader.cancel("client closed the connection");
  assert.equal(r.ends.length, 1);
  assert.equal(r.ends[0].outcome, "client_abort");
  assert.equal(r.aborted(), 1);
  assert.ok(r.upstreamCancelled());
});

eachKind("relay() reports the end once, whatever happens after", async (kind) => {
  const r = relayed([4], "stall", { expectedBytes: 8, upstreamIdleMs: 30, writeIdleMs: 30, kind });
  const reader = r.body.getReader();
  await reader.read();
  await reader.read();
  await reader.cancel().catch(() => {});
  // real clock: past both idle bounds (30 ms): a second end would have been reported by now
  await new Promise((res) => setTimeout(res, 80));
  assert.equal(r.ends.length, 1);
});

/** The bytes `source` produces for `chunks`, in order. */
function expected(chunks: number[]): number[] {
  return chunks.flatMap((n, i) => Array(n).fill(i + 1));
}

Deno.test("relay() gathers a byte stream's reads into chunks of up to chunkBytes", async () => {
  const chunks = [3, 4, 5, 6];
  const r = relayed(chunks, "close", { kind: "bytes", chunkBytes: 8 });
  const sizes: number[] = [];
  const bytes: number[] = [];
  for await (const chunk of r.body) {
    sizes.push(chunk.byteLength);
    bytes.push(...chunk);
  }
  assert.deepEqual(bytes, expected(chunks));
  assert.ok(sizes.every((n) => n <= 8), `chunk sizes ${sizes}`);
  assert.ok(sizes.length < chunks.length, `gathered: ${sizes}`);
  assert.equal(r.ends[0].outcome, "complete");
});

Deno.test("relay() hands a slow store's bytes on within one storage read", async (t) => {
  /** A byte stream that yields 4 bytes every 40 ms, four times. */
  const slow = () => {
    let i = 0;
    return new ReadableStream({
      type: "bytes",
      async pull(c) {
        // real clock: an upstream slower than the idle bounds, the relay's real timers
        await new Promise((r) => setTimeout(r, 40));
        if (++i <= 4) return c.enqueue(new Uint8Array(4).fill(i));
        c.close();
        c.byobRequest?.respond(0);
      },
    }) as ReadableStream<Uint8Array>;
  };
  const sizesOf = async (gatherMs: number) => {
    const sizes: number[] = [];
    const bytes: number[] = [];
    const body = relay(slow(), {
      expectedBytes: 16,
      upstreamIdleMs: 5_000,
      writeIdleMs: 5_000,
      chunkBytes: 64,
      gatherMs,
      abortUpstream: () => {},
      onEnd: () => {},
    });
    for await (const chunk of body) {
      sizes.push(chunk.byteLength);
      bytes.push(...chunk);
    }
    assert.deepEqual(bytes, expected([4, 4, 4, 4]));
    return sizes;
  };
  await t.step("reads 40 ms apart, gathered for 20 ms: chunks of at most two reads", async () => {
    const sizes = await sizesOf(20);
    assert.ok(sizes.length >= 2 && sizes.every((n) => n <= 8), `chunk sizes ${sizes}`);
  });
  await t.step("gathered for longer than the whole transfer: one chunk", async () => {
    assert.deepEqual(await sizesOf(10_000), [16]);
  });
});

Deno.test("relay() with freeTakenChunks frees what the consumer took, only that", async (t) => {
  const chunks = [4, 4, 4, 4, 4];
  await t.step("a consumer that copies each chunk as it takes it gets every byte", async () => {
    const r = relayed(chunks, "close", { kind: "bytes", freeTakenChunks: true });
    const taken: Uint8Array[] = [];
    const copied: number[] = [];
    for await (const chunk of r.body) {
      taken.push(chunk);
      copied.push(...chunk); // what Deno.serve's writer does: hands the bytes on at once
    }
    assert.deepEqual(copied, expected(chunks));
    assert.equal(r.ends[0].outcome, "complete");
    // Every chunk but the last ones (still in flight when storage ended) was freed.
    assert.ok(taken.slice(0, 3).every((c) => c.byteLength === 0), "taken chunks detached");
  });
  await t.step("without it (the default), chunks a consumer keeps stay intact", async () => {
    const r = relayed(chunks, "close", { kind: "bytes" });
    const taken: Uint8Array[] = [];
    for await (const chunk of r.body) taken.push(chunk);
    assert.deepEqual(taken.flatMap((c) => [...c]), expected(chunks));
  });
  await t.step(
    "chunks of a plain stream (not the relay's own buffers) are never detached",
    async () => {
      const r = relayed(chunks, "close", { kind: "chunks", freeTakenChunks: true });
      const taken: Uint8Array[] = [];
      for await (const chunk of r.body) taken.push(chunk);
      assert.deepEqual(taken.flatMap((c) => [...c]), expected(chunks));
    },
  );
});
