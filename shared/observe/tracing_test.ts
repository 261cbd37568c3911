import assert from "node:assert/strict";
import { createTracing } from "./tracing.ts";

interface OtlpExport {
  resourceSpans: {
    resource: { attributes: { key: string }[] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
}

interface OtlpSpan {
  name: string;
  traceId: string;
  parentSpanId?: string;
  kind: number;
}

/** A loopback OTLP/HTTP JSON trace receiver. */
function jsonCollector() {
  const received: OtlpExport[] = [];
  const collector = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      received.push(await req.json());
      return new Response("{}", { headers: { "content-type": "application/json" } });
    },
  );
  return { received, collector };
}

Deno.test("tracing exports one server span per request, child of the W3C traceparent", async () => {
  const { received, collector } = jsonCollector();
  try {
    const tracing = createTracing({
      serviceName: "mock-oidc",
      serviceVersion: "0.0.0-test",
      route: (req) => new URL(req.url).pathname,
      exporterUrl: `http://127.0.0.1:${collector.addr.port}/v1/traces`,
    });
    const handler = tracing.wrap(() => new Response("ok"));
    const info = {} as Deno.ServeHandlerInfo;
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    await handler(
      new Request("http://x/default/jwks", {
        headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
      }),
      info,
    );
    await handler(new Request("http://x/healthz"), info);
    await handler(new Request("http://x/metrics"), info);
    await tracing.shutdown();
    const spans = received.flatMap((body) =>
      body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans))
    );
    assert.deepEqual(spans.map((s) => s.name), ["GET /default/jwks"]);
    assert.equal(spans[0].traceId, traceId);
    assert.equal(spans[0].parentSpanId, "00f067aa0ba902b7");
    assert.equal(spans[0].kind, 2); // SERVER
    const attrs = received[0].resourceSpans[0].resource.attributes;
    assert.ok(attrs.some((a) => a.key === "service.name"));
  } finally {
    await collector.shutdown();
  }
});

Deno.test("tracing shutdown gives up on an unresponsive collector after flushTimeoutMs", async () => {
  const hung = Promise.withResolvers<void>();
  const collector = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async () => {
      await hung.promise;
      return new Response("{}");
    },
  );
  try {
    const tracing = createTracing({
      serviceName: "mock-oidc",
      serviceVersion: "0",
      route: () => "/x",
      exporterUrl: `http://127.0.0.1:${collector.addr.port}/v1/traces`,
      flushTimeoutMs: 100,
    });
    await tracing.wrap(() => new Response("ok"))(new Request("http://x/a/jwks"), {} as never);
    const started = performance.now();
    await tracing.shutdown();
    assert.ok(performance.now() - started < 2000);
  } finally {
    hung.resolve();
    await collector.shutdown();
  }
});

Deno.test("tracing skips the paths it is given instead of the probe paths", async () => {
  const { received, collector } = jsonCollector();
  try {
    const tracing = createTracing({
      serviceName: "svc",
      serviceVersion: "0",
      route: (req) => new URL(req.url).pathname,
      exporterUrl: `http://127.0.0.1:${collector.addr.port}/v1/traces`,
      untracedPaths: new Set(["/ping"]),
    });
    const handler = tracing.wrap(() => new Response("ok"));
    for (const path of ["/ping", "/healthz"]) {
      await handler(new Request(`http://x${path}`), {} as Deno.ServeHandlerInfo);
    }
    await tracing.shutdown();
    const spans = received.flatMap((body) =>
      body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans))
    );
    assert.deepEqual(spans.map((s) => s.name), ["GET /healthz"]);
  } finally {
    await collector.shutdown();
  }
});

Deno.test("tracing names spans of invented methods HTTP, method _OTHER, original kept", async () => {
  const received: { resourceSpans: { scopeSpans: { spans: SpanWithAttributes[] }[] }[] }[] = [];
  const collector = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      received.push(await req.json());
      return new Response("{}", { headers: { "content-type": "application/json" } });
    },
  );
  try {
    const tracing = createTracing({
      serviceName: "svc",
      serviceVersion: "0.0.0-test",
      route: () => "/items/{id}",
      exporterUrl: `http://127.0.0.1:${collector.addr.port}/v1/traces`,
    });
    const handler = tracing.wrap(() => new Response("ok"));
    const info = {} as Deno.ServeHandlerInfo;
    for (const method of ["GET", "BREW", "patch"]) {
      await handler(new Request("http://x/items/1", { method }), info);
    }
    await tracing.shutdown();
    const spans = received.flatMap((b) =>
      b.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans))
    );
    const attr = (s: SpanWithAttributes, key: string) =>
      s.attributes.find((a) => a.key === key)?.value.stringValue;
    assert.deepEqual(spans.map((s) => s.name), [
      "GET /items/{id}",
      "HTTP /items/{id}",
      "HTTP /items/{id}",
    ]);
    assert.deepEqual(spans.map((s) => attr(s, "http.request.method")), ["GET", "_OTHER", "_OTHER"]);
    assert.deepEqual(spans.map((s) => attr(s, "http.request.method_original")), [
      undefined,
      "BREW",
      "patch",
    ]);
  } finally {
    await collector.shutdown();
  }
});

interface SpanWithAttributes {
  name: string;
  attributes: { key: string; value: { stringValue?: string } }[];
}
