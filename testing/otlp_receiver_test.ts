import assert from "node:assert/strict";
import { decodeFields, decodeMetricsRequest } from "./otlp_receiver.ts";

/** Encodes a protobuf key and value, so the decoder is checked against known bytes. */
function varint(n: bigint): number[] {
  const out: number[] = [];
  let v = BigInt.asUintN(64, n);
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return out;
}
const key = (field: number, wire: number) => varint(BigInt((field << 3) | wire));
const len = (
  field: number,
  body: number[],
) => [...key(field, 2), ...varint(BigInt(body.length)), ...body];
const str = (field: number, s: string) => len(field, [...new TextEncoder().encode(s)]);
const f64 = (n: number) => [...new Uint8Array(new Float64Array([n]).buffer)];
const u64 = (n: bigint) => [...new Uint8Array(new BigUint64Array([n]).buffer)];

Deno.test("decodeFields() reads varints, fixed64, length-delimited and skips nothing", () => {
  const bytes = new Uint8Array([
    ...key(1, 0),
    ...varint(300n),
    ...key(2, 1),
    ...f64(1.5),
    ...str(3, "héllo"),
    ...key(1, 0),
    ...varint(-1n), // repeated field, 10-byte varint
  ]);
  const fields = decodeFields(bytes);
  assert.deepEqual(fields.get(1)?.map((f) => f.value), [300n, 2n ** 64n - 1n]);
  const d = fields.get(2)![0];
  assert.equal(d.wire === 1 && d.value.getFloat64(0, true), 1.5);
  const s = fields.get(3)![0];
  assert.equal(s.wire === 2 && new TextDecoder().decode(s.value), "héllo");
});

Deno.test("decodeFields() rejects truncated input", () => {
  assert.throws(() => decodeFields(new Uint8Array([0x08, 0x80])), /truncated varint/);
  assert.throws(() => decodeFields(new Uint8Array([0x1a, 0x05, 0x61])), /truncated field/);
  assert.throws(() => decodeFields(new Uint8Array([0x0b])), /unsupported wire type 3/);
});

Deno.test("decodeMetricsRequest() decodes a hand-encoded sum and histogram", () => {
  const kv = (k: string, v: string) => len(7, [...str(1, k), ...len(2, str(1, v))]);
  const intKv = (k: string, v: bigint) => [...str(1, k), ...len(2, [...key(3, 0), ...varint(v)])];
  const sumPoint = [...kv("outcome", "ok"), ...key(6, 1), ...u64(BigInt.asUintN(64, -2n))];
  const sum = [...len(1, sumPoint), ...key(2, 0), 2, ...key(3, 0), 1];
  const histPoint = [
    ...len(9, intKv("http.response.status_code", 200n)),
    ...key(4, 1),
    ...u64(3n),
    ...key(5, 1),
    ...f64(0.75),
    ...len(6, [...u64(1n), ...u64(2n)]), // packed bucket counts
    ...len(7, f64(0.5)), // packed bounds
  ];
  const metrics = [
    ...len(2, [...str(1, "c"), ...str(3, "{request}"), ...len(7, sum)]),
    ...len(2, [...str(1, "h"), ...str(2, "desc"), ...str(3, "s"), ...len(9, len(1, histPoint))]),
  ];
  const scope = [...len(1, str(1, "svc")), ...metrics];
  const resource = len(1, len(1, [...str(1, "service.name"), ...len(2, str(1, "svc"))]));
  const request = new Uint8Array(len(1, [...resource, ...len(2, scope)]));
  assert.deepEqual(decodeMetricsRequest(request), [
    {
      resource: { "service.name": "svc" },
      scope: "svc",
      name: "c",
      description: "",
      unit: "{request}",
      kind: "sum",
      monotonic: true,
      points: [{ attributes: { outcome: "ok" }, value: -2 }],
    },
    {
      resource: { "service.name": "svc" },
      scope: "svc",
      name: "h",
      description: "desc",
      unit: "s",
      kind: "histogram",
      points: [{
        attributes: { "http.response.status_code": 200 },
        count: 3,
        sum: 0.75,
        bucketCounts: [1, 2],
        explicitBounds: [0.5],
      }],
    },
  ]);
});
