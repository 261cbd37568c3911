import assert from "node:assert/strict";
import { acceptsGzip, compressible, gzipBody, gzipTag } from "./encoding.ts";

const gunzip = async (bytes: Uint8Array) =>
  new Uint8Array(
    await new Response(
      new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
        new DecompressionStream("gzip"),
      ),
    ).arrayBuffer(),
  );

Deno.test("acceptsGzip: codings and weights at, below and above their bounds", () => {
  const cases: [string | null, boolean][] = [
    [null, false],
    ["", false],
    ["identity", false],
    ["deflate, br", false],
    ["gzip", true],
    ["GZIP", true],
    ["x-gzip", true],
    ["br, gzip", true],
    ["gzip;q=1", true],
    ["gzip;q=1.000", true],
    ["gzip;q=0.001", true], // just above zero
    ["gzip;q=0", false],
    ["gzip; q=0.000", false],
    ["gzip;q=2", false], // out of range: malformed, accepts nothing
    ["gzip;q=1.0000", false], // four decimals: malformed
    ["gzip;q=", false],
    ["*", true],
    ["*;q=0", false],
    ["*;q=1, gzip;q=0", false], // the explicit coding wins over *
    ["gzip;q=0, *", false],
    ["identity;q=1, *;q=0.5", true],
  ];
  for (const [value, expected] of cases) assert.equal(acceptsGzip(value), expected, String(value));
});

Deno.test("compressible: JSON, not stored encoded", () => {
  const cases: [Record<string, string | undefined>, boolean][] = [
    [{ contentType: "application/json" }, true],
    [{ contentType: "Application/JSON; charset=utf-8" }, true],
    [{ contentType: "application/vnd.simplestreams+json" }, true],
    [{ contentType: "application/json", contentEncoding: "identity" }, true],
    [{ contentType: "application/json", contentEncoding: "gzip" }, false],
    [{ contentType: "application/json", contentEncoding: "br" }, false],
    [{ contentType: "application/jsonx" }, false],
    [{ contentType: "text/json" }, false],
    [{ contentType: "application/octet-stream" }, false],
    [{}, false],
  ];
  for (const [meta, expected] of cases) {
    assert.equal(compressible({ size: 1, ...meta }), expected, JSON.stringify(meta));
  }
});

Deno.test("gzipTag: a weak tag of its own; none without a parsable ETag", () => {
  assert.equal(gzipTag('"abc"'), 'W/"abc-gzip"');
  assert.equal(gzipTag('W/"abc"'), 'W/"abc-gzip"');
  assert.equal(gzipTag('""'), 'W/"-gzip"');
  assert.equal(gzipTag(undefined), undefined);
  assert.equal(gzipTag("abc"), undefined);
});

function source(chunks: string[], outcome: string) {
  const state = { outcome: undefined as string | undefined };
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      const next = chunks.shift();
      if (next === undefined) {
        state.outcome = outcome; // the relay reports its end, then closes
        c.close();
      } else c.enqueue(new TextEncoder().encode(next));
    },
  }, { highWaterMark: 0 });
  return { stream, state };
}

Deno.test("gzipBody: a complete relay gives a gzip stream that decompresses byte for byte", async () => {
  const parts = Array.from({ length: 50 }, (_, i) => `{"n":${i},"pad":"${"x".repeat(i * 97)}"},`);
  const { stream, state } = source([...parts], "complete");
  const ends: unknown[] = [];
  const body = gzipBody(stream, { outcome: () => state.outcome, onEnd: (r) => ends.push(r) });
  const bytes = new Uint8Array(await new Response(body).arrayBuffer());
  assert.equal(new TextDecoder().decode(await gunzip(bytes)), parts.join(""));
  assert.deepEqual(ends, [{ bytes: bytes.byteLength }]);
});

Deno.test("gzipBody: a relay that ended early fails the body, never a well-formed shorter gzip", async () => {
  const { stream, state } = source(['{"a":', "1"], "upstream_timeout");
  const ends: { bytes: number; early?: string }[] = [];
  const body = gzipBody(stream, { outcome: () => state.outcome, onEnd: (r) => ends.push(r) });
  await assert.rejects(new Response(body).arrayBuffer());
  assert.equal(ends.length, 1);
  assert.equal(ends[0].early, "cut");
});

Deno.test("gzipBody: a client that leaves cancels the relay and is recorded", async () => {
  let cancelled: unknown;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      c.enqueue(crypto.getRandomValues(new Uint8Array(64 * 1024)));
    },
    cancel(reason) {
      cancelled = reason;
    },
  }, { highWaterMark: 0 });
  const ends: { bytes: number; early?: string }[] = [];
  const body = gzipBody(stream, { outcome: () => undefined, onEnd: (r) => ends.push(r) });
  const reader = body.getReader();
  const first = await reader.read();
  assert.ok(!first.done && first.value.byteLength > 0);
  await reader.cancel("gone");
  assert.equal(cancelled, "gone");
  assert.deepEqual(ends, [{ bytes: first.value.byteLength, early: "client_abort" }]);
});
