/**
 * The contract's OTLP instruments (docs/image-proxy.md#metrics) over the kit's OTLP/HTTP exporter,
 * created only when `metrics.endpoint` is set. Attribute values come from fixed vocabularies:
 * methods (`_OTHER` for unknown ones), the four route labels, status codes, operation names,
 * outcomes and error kinds.
 *
 * @module
 */
import type { Meter } from "@opentelemetry/api";
import { uncaughtCounts } from "@svc/shared/lifecycle";
import type { Telemetry } from "./telemetry.ts";

const DURATION_BUCKETS = [
  0.005,
  0.01,
  0.025,
  0.05,
  0.075,
  0.1,
  0.25,
  0.5,
  0.75,
  1,
  2.5,
  5,
  7.5,
  10,
];
const SIZE_BUCKETS = [0, 1024, 16_384, 262_144, 1_048_576, 16_777_216, 268_435_456, 1_073_741_824];

/**
 * Telemetry recorded on `meter`'s instruments.
 *
 * @example Usage
 * ```ts
 * import { createOtlpMetrics } from "@svc/shared/otlp-metrics";
 * import { meteredTelemetry } from "./metrics.ts";
 * const metrics = createOtlpMetrics({ serviceName: "image-proxy", serviceVersion: "0.1.0" });
 * const telemetry = meteredTelemetry(metrics.meter);
 * telemetry.streamRejected();
 * await metrics.shutdown();
 * ```
 */
export function meteredTelemetry(meter: Meter): Telemetry {
  const requestDuration = meter.createHistogram("http.server.request.duration", {
    unit: "s",
    description: "Duration of HTTP server requests, until the last byte of the body",
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  const bodySize = meter.createHistogram("http.server.response.body.size", {
    unit: "By",
    description: "Size of HTTP server response bodies as sent",
    advice: { explicitBucketBoundaries: SIZE_BUCKETS },
  });
  const active = meter.createUpDownCounter("http.server.active_requests", {
    unit: "{request}",
    description: "Number of active HTTP server requests",
  });
  const s3Requests = meter.createCounter("imgproxy.s3.requests", {
    unit: "{request}",
    description: "Storage requests, after retries",
  });
  const s3Duration = meter.createHistogram("imgproxy.s3.request.duration", {
    unit: "s",
    description: "Duration of storage requests until their headers, retries included",
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  const s3Retries = meter.createCounter("imgproxy.s3.retries", {
    unit: "{retry}",
    description: "Storage request attempts beyond the first",
  });
  const transferred = meter.createCounter("imgproxy.s3.transferred", {
    unit: "By",
    description: "Object bytes read from storage and handed to clients",
  });
  const rejected = meter.createCounter("imgproxy.streams.rejected", {
    unit: "{stream}",
    description: "Downloads refused by the concurrent-stream limit",
  });
  const incomplete = meter.createCounter("imgproxy.streams.incomplete", {
    unit: "{stream}",
    description: "Downloads that ended before their last byte",
  });
  const readiness = meter.createGauge("imgproxy.readiness", {
    unit: "1",
    description: "1 when the proxy is ready, else 0",
  });
  readiness.record(0);
  // Beyond the spec's table: programming errors the kit's process guard logged and survived
  // (an unhandled rejection, an exception thrown in a callback), so an operator can alert on them.
  meter.createObservableCounter("imgproxy.process.uncaught_errors", {
    unit: "{error}",
    description: "Unhandled rejections and uncaught exceptions, logged; the process lived on",
  }).addCallback((result) => {
    const { rejections, exceptions } = uncaughtCounts();
    result.observe(rejections, { kind: "rejection" });
    result.observe(exceptions, { kind: "exception" });
  });
  return {
    requestStarted: () => active.add(1),
    requestEnded(r) {
      active.add(-1);
      const attributes = {
        "http.request.method": r.method,
        "http.route": r.route,
        "http.response.status_code": r.status,
        "url.scheme": "http",
        "network.protocol.name": "http",
        "network.protocol.version": "1.1",
      };
      requestDuration.record(r.durationS, attributes);
      bodySize.record(r.bodyBytes, attributes);
    },
    storeRequest(e) {
      const attributes = {
        "aws.operation": e.operation,
        outcome: e.outcome,
        ...(e.errorKind ? { "error.kind": e.errorKind } : {}),
        ...(e.store ? { "imgproxy.store": e.store } : {}),
      };
      s3Requests.add(1, attributes);
      s3Duration.record(e.durationS, attributes);
      if (e.retries > 0) s3Retries.add(e.retries, attributes);
    },
    streamRejected: () => rejected.add(1),
    streamEnded({ outcome, bytes }) {
      const failed = outcome !== "complete";
      transferred.add(bytes, {
        "aws.operation": "GetObject",
        outcome: failed ? "error" : "success",
        ...(failed ? { "error.kind": outcome } : {}),
      });
      if (failed) incomplete.add(1, { "error.kind": outcome });
    },
    readiness: (ready) => readiness.record(ready ? 1 : 0),
  };
}
