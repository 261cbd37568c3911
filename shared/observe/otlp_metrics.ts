/**
 * OTLP/HTTP metrics export (protobuf) through the OpenTelemetry JS SDK, next to the Prometheus
 * exposition of `@svc/shared/metrics`: a `MeterProvider` whose instruments are exported to a
 * collector every `intervalMs` when a URL is configured (and cost next to nothing when not).
 *
 * Export failures never reach the service: the SDK retries within `timeoutMs`, and what still
 * fails is logged as one sanitized warning (`metric export failed`, with a `reason` such as
 * `http_503`, `timeout` or `econnrefused` and the count of failures since the last warning) at
 * most once per `warnIntervalMs`. Collector headers (`OTEL_EXPORTER_OTLP_HEADERS`) and other
 * `OTEL_EXPORTER_OTLP_*` settings are read by the SDK itself, so a process that exports needs
 * `--allow-env=OTEL_*` besides net access to the collector.
 *
 * @module
 */
import type { Meter } from "@opentelemetry/api";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from "@opentelemetry/sdk-metrics";
import type { Logger } from "./log.ts";
import { boundedWait, failureKind } from "./export_bounds.ts";

/** Options of {@linkcode createOtlpMetrics}. */
export interface OtlpMetricsOptions {
  /** Collector URL, e.g. `http://127.0.0.1:4318/v1/metrics`; unset: nothing is exported. */
  url?: string;
  /** Resource attribute `service.name`. */
  serviceName: string;
  /** Resource attribute `service.version`. */
  serviceVersion: string;
  /** Time between exports. @default {60000} */
  intervalMs?: number;
  /** Bound of one export, retries included; at most `intervalMs`. @default {10000} */
  timeoutMs?: number;
  /** Bound of the final export at shutdown. @default {3000} */
  shutdownTimeoutMs?: number;
  /** Extra request headers (the SDK adds those of `OTEL_EXPORTER_OTLP_HEADERS`). */
  headers?: Record<string, string>;
  /** Gets the export warnings. */
  logger?: Logger;
  /** Shortest time between two export warnings. @default {60000} */
  warnIntervalMs?: number;
  /** Monotonic clock in ms, for the warning window. @default {performance.now} */
  now?: () => number;
}

/** A meter provider that exports over OTLP/HTTP when configured. */
export interface OtlpMetrics {
  /** Whether a collector URL was configured. */
  readonly enabled: boolean;
  /** The service's meter (scope named after the service). */
  readonly meter: Meter;
  /** For meters of other scopes. */
  readonly meterProvider: MeterProvider;
  /** Exports now; never throws. */
  flush(): Promise<void>;
  /** Exports one last time within `shutdownTimeoutMs` and stops; never throws. */
  shutdown(): Promise<void>;
}

/**
 * Creates the meter provider and, with a `url`, starts exporting every `intervalMs`.
 *
 * @example Usage
 * ```ts
 * import { createOtlpMetrics } from "@svc/shared/otlp-metrics";
 * import assert from "node:assert/strict";
 * // Without a url nothing is exported; the instruments work all the same.
 * const metrics = createOtlpMetrics({ serviceName: "image-proxy", serviceVersion: "1.0.0" });
 * assert.equal(metrics.enabled, false);
 * const duration = metrics.meter.createHistogram("http.server.request.duration", { unit: "s" });
 * duration.record(0.012, { "http.request.method": "GET", "http.route": "object" });
 * await metrics.shutdown();
 * ```
 * @throws {Error} when the SDK may not read its `OTEL_*` variables (run with
 * `--allow-env=OTEL_*`), or `timeoutMs`/`intervalMs` are not positive.
 */
export function createOtlpMetrics(options: OtlpMetricsOptions): OtlpMetrics {
  const {
    url,
    intervalMs = 60_000,
    shutdownTimeoutMs = 3_000,
    warnIntervalMs = 60_000,
    now = () => performance.now(),
    logger,
  } = options;
  const timeoutMs = Math.min(options.timeoutMs ?? 10_000, intervalMs);
  if (!(intervalMs > 0) || !(timeoutMs > 0)) {
    throw new RangeError("Cannot export metrics: intervalMs and timeoutMs must be positive");
  }
  const resource = resourceFromAttributes({
    "service.name": options.serviceName,
    "service.version": options.serviceVersion,
  });
  const readers = url
    ? [
      new PeriodicExportingMetricReader({
        exporter: warnOnFailure(exporterFor(url, timeoutMs, options.headers), {
          logger,
          warnIntervalMs,
          now,
        }),
        exportIntervalMillis: intervalMs,
        exportTimeoutMillis: timeoutMs,
      }),
    ]
    : [];
  const meterProvider = new MeterProvider({ resource, readers });
  let stopped: Promise<void> | undefined;
  return {
    enabled: readers.length > 0,
    meter: meterProvider.getMeter(options.serviceName, options.serviceVersion),
    meterProvider,
    flush: () => meterProvider.forceFlush().catch(() => {}),
    shutdown() {
      // An unreachable collector must not hold the process past its shutdown budget.
      stopped ??= boundedWait(meterProvider.shutdown().catch(() => {}), shutdownTimeoutMs);
      return stopped;
    },
  };
}

function exporterFor(
  url: string,
  timeoutMs: number,
  headers: Record<string, string> | undefined,
): OTLPMetricExporter {
  try {
    return new OTLPMetricExporter({ url, timeoutMillis: timeoutMs, headers });
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable || err instanceof Deno.errors.PermissionDenied) {
      throw new Error(
        "Cannot export metrics: the OpenTelemetry SDK reads OTEL_* variables; run with " +
          "--allow-env=OTEL_*",
        { cause: err },
      );
    }
    throw err;
  }
}

/** Passes every export through, logging failures at most once per window. */
function warnOnFailure(
  inner: PushMetricExporter,
  options: { logger?: Logger; warnIntervalMs: number; now: () => number },
): PushMetricExporter {
  let lastWarning = -Infinity;
  let failures = 0;
  return {
    export(metrics, done) {
      inner.export(metrics, (result) => {
        if (result.code !== 0) {
          failures++;
          const at = options.now();
          if (at - lastWarning >= options.warnIntervalMs) {
            lastWarning = at;
            options.logger?.warn("metric export failed", {
              reason: failureKind(result.error),
              failures,
            });
            failures = 0;
          }
        }
        done(result);
      });
    },
    forceFlush: () => inner.forceFlush(),
    shutdown: () => inner.shutdown(),
    selectAggregationTemporality: inner.selectAggregationTemporality?.bind(inner),
    selectAggregation: inner.selectAggregation?.bind(inner),
  };
}
