import assert from "node:assert/strict";
import { startMock } from "./_test_support.ts";

interface OtlpBody {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: { name: string; traceId: string; parentSpanId?: string }[] }[];
  }[];
}

Deno.test("--tracing-enabled exports server spans over OTLP/HTTP, flushed at shutdown", async () => {
  const bodies: OtlpBody[] = [];
  const collector = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      bodies.push(await req.json());
      return Response.json({});
    },
  );
  try {
    const mock = await startMock({
      args: ["--tracing-enabled"],
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.addr.port}`,
        OTEL_SERVICE_NAME: "mock-oidc-under-test",
        OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test",
      },
    });
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    const jwks = await fetch(`${mock.url}/traced/jwks`, {
      headers: { traceparent: `00-${traceId}-b7ad6b7169203331-01` },
    });
    await jwks.body?.cancel();
    for (const path of ["/healthz", "/isalive", "/readyz"]) {
      await (await fetch(`${mock.url}${path}`)).body?.cancel();
    }
    await (await fetch(`${mock.urls.metrics}/metrics`)).body?.cancel();
    assert.equal(await mock.stop(), 0);
    const spans = bodies.flatMap((b) =>
      b.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans))
    );
    assert.deepEqual(spans.map((s) => s.name), ["GET /{issuer}/jwks"]);
    assert.equal(spans[0].traceId, traceId);
    assert.equal(spans[0].parentSpanId, "b7ad6b7169203331");
    const attributes = bodies[0].resourceSpans[0].resource.attributes;
    const attr = (key: string) => attributes.find((a) => a.key === key)?.value.stringValue;
    assert.equal(attr("service.name"), "mock-oidc-under-test");
    assert.equal(attr("deployment.environment"), "test");
  } finally {
    await collector.shutdown();
  }
});

Deno.test("tracing is off by default: no export attempts", async () => {
  let hits = 0;
  const collector = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    hits++;
    return Response.json({});
  });
  try {
    const mock = await startMock({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.addr.port}` },
    });
    await (await fetch(`${mock.url}/x/jwks`)).body?.cancel();
    await mock.stop();
    assert.equal(hits, 0);
  } finally {
    await collector.shutdown();
  }
});

Deno.test("OTEL_TRACES_SAMPLER=always_off samples nothing even with --tracing-enabled", async () => {
  let spans = 0;
  const collector = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      const body: OtlpBody = await req.json();
      spans += body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)).length;
      return Response.json({});
    },
  );
  try {
    const mock = await startMock({
      args: ["--tracing-enabled"],
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.addr.port}`,
        OTEL_TRACES_SAMPLER: "always_off",
      },
    });
    await (await fetch(`${mock.url}/x/jwks`)).body?.cancel();
    assert.equal(await mock.stop(), 0);
    assert.equal(spans, 0);
  } finally {
    await collector.shutdown();
  }
});
