/**
 * An OTLP metrics receiver for tests: a local OTLP/HTTP receiver on loopback that decodes what
 * exporters send, with the minimal protobuf decoder for OTLP metrics requests it uses
 * (`ExportMetricsServiceRequest`, opentelemetry-proto `metrics/v1`). Only the fields the tests
 * assert on are decoded; unknown fields are skipped by wire type, as protobuf requires.
 *
 * @module
 */

/** One decoded metric (a flattened view of ResourceMetrics > ScopeMetrics > Metric). */
export interface DecodedMetric {
  /** The resource's attributes (`service.name`, …). */
  resource: Record<string, unknown>;
  /** The instrumentation scope's name. */
  scope: string;
  /** The metric's name. */
  name: string;
  /** The metric's description. */
  description: string;
  /** The metric's unit. */
  unit: string;
  /** Which data kind the metric carries. */
  kind: "gauge" | "sum" | "histogram" | "exponential_histogram" | "summary";
  /** Sums only. */
  monotonic?: boolean;
  /** The data points (exponential histograms and summaries: none decoded). */
  points: DecodedPoint[];
}

/** A data point: `value` for gauges and sums, `count`/`sum`/`bucketCounts` for histograms. */
export interface DecodedPoint {
  /** The point's attributes. */
  attributes: Record<string, unknown>;
  /** Gauges and sums: the value. */
  value?: number;
  /** Histograms: the number of observations. */
  count?: number;
  /** Histograms: their sum. */
  sum?: number;
  /** Histograms: the count in each bucket. */
  bucketCounts?: number[];
  /** Histograms: the buckets' upper bounds. */
  explicitBounds?: number[];
}

/** A protobuf field: a varint, a fixed 64- or 32-bit value, or length-delimited bytes. */
export type ProtobufField = { wire: 0; value: bigint } | { wire: 1 | 5; value: DataView } | {
  wire: 2;
  value: Uint8Array;
};

/** Splits a protobuf message into its fields by number, in order. */
export function decodeFields(bytes: Uint8Array): Map<number, ProtobufField[]> {
  const fields = new Map<number, ProtobufField[]>();
  let pos = 0;
  function varint(): bigint {
    let result = 0n;
    for (let shift = 0n;; shift += 7n) {
      if (pos >= bytes.length) throw new RangeError("Cannot decode protobuf: truncated varint");
      const b = bytes[pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return result;
      if (shift > 63n) throw new RangeError("Cannot decode protobuf: varint too long");
    }
  }
  function take(n: number): Uint8Array {
    if (pos + n > bytes.length) throw new RangeError("Cannot decode protobuf: truncated field");
    const out = bytes.subarray(pos, pos + n);
    pos += n;
    return out;
  }
  while (pos < bytes.length) {
    const key = Number(varint());
    const number = key >>> 3;
    const wire = key & 7;
    let field: ProtobufField;
    if (wire === 0) field = { wire, value: varint() };
    else if (wire === 1 || wire === 5) {
      const raw = take(wire === 1 ? 8 : 4);
      field = { wire, value: new DataView(raw.buffer, raw.byteOffset, raw.byteLength) };
    } else if (wire === 2) field = { wire, value: take(Number(varint())) };
    else throw new RangeError(`Cannot decode protobuf: unsupported wire type ${wire}`);
    const list = fields.get(number) ?? [];
    list.push(field);
    fields.set(number, list);
  }
  return fields;
}

const text = new TextDecoder();
const bytesOf = (f: ProtobufField) => f.wire === 2 ? f.value : new Uint8Array();
const str = (fs: Map<number, ProtobufField[]>, n: number) => {
  const f = fs.get(n)?.[0];
  return f ? text.decode(bytesOf(f)) : "";
};
const messages = (fs: Map<number, ProtobufField[]>, n: number) =>
  (fs.get(n) ?? []).map((f) => decodeFields(bytesOf(f)));

function fixed64(f: ProtobufField): bigint {
  if (f.wire === 1) return f.value.getBigUint64(0, true);
  throw new TypeError("expected fixed64");
}
function double(f: ProtobufField): number {
  if (f.wire === 1) return f.value.getFloat64(0, true);
  throw new TypeError("expected double");
}
/** Packed (wire 2) or unpacked repeated fixed64/double. */
function repeated64(fields: ProtobufField[] | undefined, read: (v: DataView) => number): number[] {
  const out: number[] = [];
  for (const f of fields ?? []) {
    if (f.wire === 1) out.push(read(f.value));
    else if (f.wire === 2) {
      const v = new DataView(f.value.buffer, f.value.byteOffset, f.value.byteLength);
      for (let i = 0; i < v.byteLength; i += 8) {
        out.push(read(new DataView(v.buffer, v.byteOffset + i, 8)));
      }
    }
  }
  return out;
}

function anyValue(fs: Map<number, ProtobufField[]>): unknown {
  // AnyValue: 1 string, 2 bool, 3 int64, 4 double, 5 array, 6 kvlist, 7 bytes
  if (fs.has(1)) return str(fs, 1);
  const f2 = fs.get(2)?.[0];
  if (f2?.wire === 0) return f2.value !== 0n;
  const f3 = fs.get(3)?.[0];
  if (f3?.wire === 0) return Number(BigInt.asIntN(64, f3.value));
  const f4 = fs.get(4)?.[0];
  if (f4) return double(f4);
  if (fs.has(5)) return messages(messages(fs, 5)[0], 1).map(anyValue);
  return undefined;
}

function attributes(list: Map<number, ProtobufField[]>[]): Record<string, unknown> {
  // KeyValue: 1 key, 2 value
  return Object.fromEntries(list.map((kv) => [str(kv, 1), anyValue(messages(kv, 2)[0])]));
}

function numberPoint(fs: Map<number, ProtobufField[]>): DecodedPoint {
  // NumberDataPoint: 7 attributes, 4 as_double, 6 as_int (sfixed64)
  const asDouble = fs.get(4)?.[0];
  const asInt = fs.get(6)?.[0];
  return {
    attributes: attributes(messages(fs, 7)),
    value: asDouble ? double(asDouble) : asInt ? Number(BigInt.asIntN(64, fixed64(asInt))) : 0,
  };
}

function histogramPoint(fs: Map<number, ProtobufField[]>): DecodedPoint {
  // HistogramDataPoint: 9 attributes, 4 count, 5 sum, 6 bucket_counts, 7 explicit_bounds
  const count = fs.get(4)?.[0];
  const sum = fs.get(5)?.[0];
  return {
    attributes: attributes(messages(fs, 9)),
    count: count ? Number(fixed64(count)) : 0,
    sum: sum ? double(sum) : undefined,
    bucketCounts: repeated64(fs.get(6), (v) => Number(v.getBigUint64(0, true))),
    explicitBounds: repeated64(fs.get(7), (v) => v.getFloat64(0, true)),
  };
}

const KINDS = { 5: "gauge", 7: "sum", 9: "histogram", 10: "exponential_histogram", 11: "summary" };

/** Decodes an `ExportMetricsServiceRequest` into a flat list of metrics. */
export function decodeMetricsRequest(bytes: Uint8Array): DecodedMetric[] {
  const out: DecodedMetric[] = [];
  for (const rm of messages(decodeFields(bytes), 1)) {
    // ResourceMetrics: 1 resource (Resource: 1 attributes), 2 scope_metrics
    const resource = attributes(messages(messages(rm, 1)[0] ?? new Map(), 1));
    for (const sm of messages(rm, 2)) {
      // ScopeMetrics: 1 scope (InstrumentationScope: 1 name), 2 metrics
      const scope = str(messages(sm, 1)[0] ?? new Map(), 1);
      for (const m of messages(sm, 2)) {
        // Metric: 1 name, 2 description, 3 unit, then one of the data kinds
        const entry = Object.entries(KINDS).find(([n]) => m.has(Number(n)));
        if (!entry) continue;
        const kind = entry[1] as DecodedMetric["kind"];
        const data = messages(m, Number(entry[0]))[0];
        const point = kind === "histogram" ? histogramPoint : numberPoint;
        const monotonic = data.get(3)?.[0];
        out.push({
          resource,
          scope,
          name: str(m, 1),
          description: str(m, 2),
          unit: str(m, 3),
          kind,
          ...(kind === "sum" ? { monotonic: monotonic?.wire === 0 && monotonic.value === 1n } : {}),
          points: messages(data, 1).map(point),
        });
      }
    }
  }
  return out;
}

/** A local OTLP/HTTP receiver. */
export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>/v1/metrics`. */
  url: string;
  /** Decoded metrics of every accepted request, in arrival order. */
  requests: DecodedMetric[][];
  /** Content types of every request seen (accepted or not). */
  contentTypes: string[];
  /** Headers of every request seen. */
  headers: Headers[];
  /** Resolves with the next accepted request. */
  next(): Promise<DecodedMetric[]>;
  /** Status to answer from now on (200 accepts; anything else fails the export). */
  respondWith(status: number): void;
  /** Stops the receiver. */
  close(): Promise<void>;
}

/**
 * Starts a receiver on loopback, port 0, that accepts `application/x-protobuf` metrics.
 *
 * @example Usage
 * ```ts
 * import { startOtlpReceiver } from "@svc/testing/otlp-receiver";
 * import assert from "node:assert/strict";
 * const receiver = startOtlpReceiver();
 * const next = receiver.next();
 * // An empty ExportMetricsServiceRequest: no resource metrics.
 * const res = await fetch(receiver.url, {
 *   method: "POST",
 *   headers: { "content-type": "application/x-protobuf" },
 *   body: new Uint8Array(),
 * });
 * await res.body?.cancel();
 * assert.equal(res.status, 200);
 * assert.deepEqual(await next, []);
 * await receiver.close();
 * ```
 */
export function startOtlpReceiver(): OtlpReceiver {
  const requests: DecodedMetric[][] = [];
  const contentTypes: string[] = [];
  const headers: Headers[] = [];
  let status = 200;
  let waiting: ((m: DecodedMetric[]) => void)[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const body = new Uint8Array(await req.arrayBuffer());
    contentTypes.push(req.headers.get("content-type") ?? "");
    headers.push(req.headers);
    if (status !== 200 || new URL(req.url).pathname !== "/v1/metrics") {
      return new Response("unavailable", { status: status === 200 ? 404 : status });
    }
    const decoded = decodeMetricsRequest(body);
    requests.push(decoded);
    const wake = waiting;
    waiting = [];
    for (const w of wake) w(decoded);
    // An empty ExportMetricsServiceResponse.
    return new Response(new Uint8Array(), {
      headers: { "content-type": "application/x-protobuf" },
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/v1/metrics`,
    requests,
    contentTypes,
    headers,
    next: () => new Promise((resolve) => waiting.push(resolve)),
    respondWith(next) {
      status = next;
    },
    close: () => server.shutdown(),
  };
}
