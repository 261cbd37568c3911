/**
 * Tracing: one server span per inbound request, exported over OTLP/HTTP by the OpenTelemetry JS
 * SDK. Endpoint, sampler and resource come from the standard `OTEL_*` variables, which the SDK
 * reads itself (so the process needs `--allow-env=OTEL_*`); a W3C `traceparent` on the request
 * becomes the parent. Probe and scrape routes create no spans. `shutdown()` flushes pending spans
 * within a bound.
 *
 * The SDK costs hundreds of milliseconds of startup: import this module only when tracing is on
 * (`await import("@svc/shared/tracing")`).
 *
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
import type { Handler } from "../http/handler.ts";
import { methodLabel } from "../http/method_label.ts";
import { PROBE_PATHS } from "../http/health.ts";
import { boundedWait } from "./export_bounds.ts";

/** Options of {@linkcode createTracing}. */
export interface TracingOptions {
  /** Default `service.name`, overridden by `OTEL_SERVICE_NAME` / `OTEL_RESOURCE_ATTRIBUTES`. */
  serviceName: string;
  /** Resource attribute `service.version`. */
  serviceVersion: string;
  /** Route label for the span name and `http.route` (`/{issuer}/token`, not the path). */
  route: (req: Request) => string;
  /** Overrides `OTEL_EXPORTER_OTLP_*` (tests). */
  exporterUrl?: string;
  /** Longest wait for the final export at shutdown. @default {3000} */
  flushTimeoutMs?: number;
  /** Paths that never create spans. @default {PROBE_PATHS} */
  untracedPaths?: ReadonlySet<string>;
}

/** A started tracer provider. */
export interface Tracing {
  /** Wraps a handler so each request gets a server span. */
  wrap(handler: Handler): Handler;
  /** Flushes pending spans (within `flushTimeoutMs`) and stops exporting. */
  shutdown(): Promise<void>;
}

const HEADER_GETTER: TextMapGetter<Headers> = {
  keys: (carrier) => [...carrier.keys()],
  get: (carrier, key) => carrier.get(key) ?? undefined,
};

/**
 * Starts the tracer provider and returns the request wrapper.
 *
 * @example Usage
 * ```ts
 * import { createTracing } from "@svc/shared/tracing";
 * import assert from "node:assert/strict";
 * const tracing = createTracing({
 *   serviceName: "demo",
 *   serviceVersion: "1.0.0",
 *   route: (req) => new URL(req.url).pathname,
 *   exporterUrl: "http://127.0.0.1:4318/v1/traces",
 *   flushTimeoutMs: 100,
 * });
 * const handler = tracing.wrap(() => new Response("ok"));
 * const res = await handler(new Request("http://x/hello"), {} as Deno.ServeHandlerInfo);
 * assert.equal(await res.text(), "ok");
 * await tracing.shutdown(); // a collector that is not there costs at most flushTimeoutMs
 * ```
 */
export function createTracing(options: TracingOptions): Tracing {
  const untraced = options.untracedPaths ?? PROBE_PATHS;
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
      if (untraced.has(url.pathname)) return handler(req, info);
      const parent: Context = propagator.extract(ROOT_CONTEXT, req.headers, HEADER_GETTER);
      const route = options.route(req);
      // OpenTelemetry's HTTP conventions: an unknown method is `_OTHER` (the original kept
      // apart) and the span is named `HTTP`, so invented methods cannot mint span names.
      const method = methodLabel(req.method);
      const known = method !== "_OTHER";
      const span = tracer.startSpan(`${known ? method : "HTTP"} ${route}`, {
        kind: SpanKind.SERVER,
        attributes: {
          "http.request.method": method,
          ...(known ? {} : { "http.request.method_original": req.method }),
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

  let stopped: Promise<void> | undefined;
  function shutdown(): Promise<void> {
    // An unreachable collector must not hold the process past its shutdown grace.
    stopped ??= boundedWait(provider.shutdown(), options.flushTimeoutMs ?? 3_000);
    return stopped;
  }

  return { wrap, shutdown };
}
