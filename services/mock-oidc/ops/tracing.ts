/**
 * `--tracing-enabled`: one server span per inbound request, exported over OTLP/HTTP by the
 * OpenTelemetry JS SDK. Endpoint, sampler and resource come from the standard `OTEL_*`
 * variables, which the SDK reads itself; a W3C `traceparent` on the request becomes the parent.
 * Probe and scrape routes create no spans. `shutdown()` flushes pending spans.
 * @module
 */
import {
  type Context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { Handler } from "@svc/shared/http";

/** Routes that never create spans. */
const UNTRACED = new Set(["/isalive", "/healthz", "/readyz", "/metrics"]);

export interface TracingOptions {
  /** Default `service.name`, overridden by `OTEL_SERVICE_NAME` / `OTEL_RESOURCE_ATTRIBUTES`. */
  serviceName: string;
  serviceVersion: string;
  /** Route template for the span name and `http.route`. */
  route: (req: Request) => string;
  /** Overrides `OTEL_EXPORTER_OTLP_*` (tests). */
  exporterUrl?: string;
  /** Longest wait for the final export at shutdown. @default 3000 */
  flushTimeoutMs?: number;
}

export interface Tracing {
  wrap(handler: Handler): Handler;
  /** Flushes pending spans and stops exporting. */
  shutdown(): Promise<void>;
}

const HEADER_GETTER: TextMapGetter<Headers> = {
  keys: (carrier) => [...carrier.keys()],
  get: (carrier, key) => carrier.get(key) ?? undefined,
};

/** Starts the tracer provider and returns the request wrapper. */
export function createTracing(options: TracingOptions): Tracing {
  const resource = resourceFromAttributes({
    "service.name": options.serviceName,
    "service.version": options.serviceVersion,
  }).merge(detectResources({ detectors: [envDetector] }));
  const exporter = new OTLPTraceExporter(options.exporterUrl ? { url: options.exporterUrl } : {});
  const provider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer(options.serviceName, options.serviceVersion);
  const propagator = new W3CTraceContextPropagator();

  function wrap(handler: Handler): Handler {
    return async function traced(req, info) {
      const url = new URL(req.url);
      if (UNTRACED.has(url.pathname)) return handler(req, info);
      const parent: Context = propagator.extract(ROOT_CONTEXT, req.headers, HEADER_GETTER);
      const route = options.route(req);
      const span = tracer.startSpan(`${req.method} ${route}`, {
        kind: SpanKind.SERVER,
        attributes: {
          "http.request.method": req.method,
          "http.route": route,
          "url.path": url.pathname,
          "url.scheme": url.protocol.replace(":", ""),
        },
      }, parent);
      try {
        const response = await handler(req, info);
        span.setAttribute("http.response.status_code", response.status);
        if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        return response;
      } catch (err) {
        span.recordException(err as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw err;
      } finally {
        span.end();
      }
    };
  }

  async function shutdown() {
    // An unreachable collector must not hold the process past its shutdown grace.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const limit = new Promise<void>((resolve) =>
      timer = setTimeout(resolve, options.flushTimeoutMs ?? 3_000)
    );
    await Promise.race([provider.shutdown().catch(() => {}), limit]);
    clearTimeout(timer);
  }

  return { wrap, shutdown };
}
