import assert from "node:assert/strict";
import { createTracing } from "./tracing.ts";

interface OtlpSpan {
  name: string;
  traceId: string;
  parentSpanId?: string;
  kind: number;
}

Deno.test("tracing exports one server span per request, child of the W3C traceparent", async () => {
  const received: unknown[] = [];
  const collector = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      received.push(await req.json());
      return new Response("{}", { headers: { "content-type": "application/json" } });
    },
  );
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
    // deno-lint-ignore no-explicit-any
    const spans: OtlpSpan[] = received.flatMap((body: any) =>
      body.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans))
    );
    assert.deepEqual(spans.map((s) => s.name), ["GET /default/jwks"]);
    assert.equal(spans[0].traceId, traceId);
    assert.equal(spans[0].parentSpanId, "00f067aa0ba902b7");
    assert.equal(spans[0].kind, 2); // SERVER
    // deno-lint-ignore no-explicit-any
    const attrs = (received[0] as any).resourceSpans[0].resource.attributes;
    assert.ok(attrs.some((a: { key: string }) => a.key === "service.name"));
  } finally {
    await collector.shutdown();
  }
});
