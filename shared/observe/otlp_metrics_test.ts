import assert from "node:assert/strict";
import { createLogger } from "./log.ts";
import { createOtlpMetrics } from "./otlp_metrics.ts";
import { type DecodedMetric, startOtlpReceiver } from "@svc/testing/otlp-receiver";

function byName(metrics: DecodedMetric[], name: string): DecodedMetric {
  const found = metrics.find((m) => m.name === name);
  assert.ok(found, `${name} in ${metrics.map((m) => m.name).join(", ")}`);
  return found;
}

Deno.test("OTLP metrics reach a local receiver with names, units and attributes", async () => {
  const receiver = startOtlpReceiver();
  try {
    const metrics = createOtlpMetrics({
      url: receiver.url,
      serviceName: "image-proxy",
      serviceVersion: "1.2.3",
      intervalMs: 3_600_000, // only the explicit flush exports
      headers: { "x-collector-tenant": "t1" },
    });
    assert.equal(metrics.enabled, true);
    const { meter } = metrics;
    const attrs = { "http.request.method": "GET", "http.route": "object" };
    const duration = meter.createHistogram("http.server.request.duration", {
      unit: "s",
      description: "Duration of HTTP server requests",
      advice: { explicitBucketBoundaries: [0.1, 1] },
    });
    duration.record(0.05, attrs);
    duration.record(0.5, attrs);
    duration.record(5, attrs);
    meter.createCounter("imgproxy.s3.requests", { unit: "{request}" })
      .add(3, { "aws.operation": "GetObject", outcome: "success" });
    const active = meter.createUpDownCounter("http.server.active_requests", { unit: "{request}" });
    active.add(2);
    active.add(-1);
    meter.createGauge("imgproxy.readiness", { unit: "1" }).record(1);

    await metrics.flush();
    assert.equal(receiver.requests.length, 1);
    assert.equal(receiver.contentTypes[0], "application/x-protobuf");
    assert.equal(receiver.headers[0].get("x-collector-tenant"), "t1");
    const got = receiver.requests[0];

    const hist = byName(got, "http.server.request.duration");
    assert.equal(hist.kind, "histogram");
    assert.equal(hist.unit, "s");
    assert.equal(hist.description, "Duration of HTTP server requests");
    assert.equal(hist.scope, "image-proxy");
    assert.deepEqual(hist.resource["service.name"], "image-proxy");
    assert.deepEqual(hist.resource["service.version"], "1.2.3");
    assert.equal(hist.points.length, 1);
    assert.deepEqual(hist.points[0].attributes, attrs);
    assert.equal(hist.points[0].count, 3);
    assert.equal(hist.points[0].sum, 5.55);
    assert.deepEqual(hist.points[0].explicitBounds, [0.1, 1]);
    assert.deepEqual(hist.points[0].bucketCounts, [1, 1, 1]);

    const s3 = byName(got, "imgproxy.s3.requests");
    assert.equal(s3.kind, "sum");
    assert.equal(s3.monotonic, true);
    assert.equal(s3.unit, "{request}");
    assert.deepEqual(s3.points, [{
      attributes: { "aws.operation": "GetObject", outcome: "success" },
      value: 3,
    }]);

    const upDown = byName(got, "http.server.active_requests");
    assert.equal(upDown.kind, "sum");
    assert.equal(upDown.monotonic, false);
    assert.deepEqual(upDown.points, [{ attributes: {}, value: 1 }]);

    const gauge = byName(got, "imgproxy.readiness");
    assert.equal(gauge.kind, "gauge");
    assert.equal(gauge.unit, "1");
    assert.deepEqual(gauge.points, [{ attributes: {}, value: 1 }]);
    await metrics.shutdown();
  } finally {
    await receiver.close();
  }
});

Deno.test("OTLP metrics are exported on the interval without a flush", async () => {
  const receiver = startOtlpReceiver();
  try {
    const metrics = createOtlpMetrics({
      url: receiver.url,
      serviceName: "svc",
      serviceVersion: "0",
      intervalMs: 50,
    });
    metrics.meter.createCounter("ticks").add(1);
    const first = await receiver.next();
    assert.equal(byName(first, "ticks").points[0].value, 1);
    metrics.meter.createCounter("ticks").add(2);
    let later = await receiver.next();
    while (byName(later, "ticks").points[0].value !== 3) later = await receiver.next();
    await metrics.shutdown();
  } finally {
    await receiver.close();
  }
});

Deno.test("without a url nothing is exported and the instruments still work", async () => {
  const metrics = createOtlpMetrics({ serviceName: "svc", serviceVersion: "0" });
  assert.equal(metrics.enabled, false);
  metrics.meter.createCounter("c").add(1);
  await metrics.flush();
  await metrics.shutdown();
});

Deno.test("export failures never throw and warn at most once per window", async (t) => {
  const receiver = startOtlpReceiver();
  const lines: Record<string, unknown>[] = [];
  let clock = 0;
  const metrics = createOtlpMetrics({
    url: receiver.url,
    serviceName: "svc",
    serviceVersion: "0",
    intervalMs: 3_600_000,
    logger: createLogger({ write: (l) => lines.push(JSON.parse(l)) }),
    now: () => clock,
  });
  const counter = metrics.meter.createCounter("c");
  const warnings = () => lines.filter((l) => l.msg === "metric export failed");
  try {
    await t.step("a rejecting collector: one warning, sanitized", async () => {
      receiver.respondWith(400);
      for (let i = 0; i < 3; i++) {
        counter.add(1);
        await metrics.flush();
        clock += 1_000;
      }
      assert.equal(warnings().length, 1);
      assert.equal(warnings()[0].level, "warn");
      assert.equal(warnings()[0].reason, "http_400");
      assert.equal(warnings()[0].failures, 1);
      assert.ok(!JSON.stringify(lines).includes(receiver.url), "the URL is never logged");
    });
    await t.step("the next warning comes a minute after the last, with the count", async () => {
      clock = 59_999;
      await metrics.flush();
      assert.equal(warnings().length, 1, "just under a minute: still quiet");
      clock = 60_000;
      await metrics.flush();
      assert.equal(warnings().length, 2, "a minute after the first warning");
      assert.equal(warnings()[1].failures, 4); // three suppressed and this one
    });
    await t.step("a collector that is back exports again, without a warning", async () => {
      receiver.respondWith(200);
      await metrics.flush();
      assert.equal(receiver.requests.length, 1);
      assert.equal(warnings().length, 2);
    });
  } finally {
    await metrics.shutdown();
    await receiver.close();
  }
});

Deno.test("an unreachable collector is a warning, not an error", async () => {
  const receiver = startOtlpReceiver();
  const url = receiver.url;
  await receiver.close(); // nothing listens there any more
  const lines: Record<string, unknown>[] = [];
  const metrics = createOtlpMetrics({
    url,
    serviceName: "svc",
    serviceVersion: "0",
    intervalMs: 3_600_000,
    timeoutMs: 2_000,
    logger: createLogger({ write: (l) => lines.push(JSON.parse(l)) }),
  });
  metrics.meter.createCounter("c").add(1);
  await metrics.flush();
  const warning = lines.find((l) => l.msg === "metric export failed");
  assert.ok(warning, JSON.stringify(lines));
  assert.equal(warning.reason, "econnrefused");
  await metrics.shutdown();
});

Deno.test("shutdown gives up on a collector that never answers", async () => {
  const hung = Promise.withResolvers<void>();
  const collector = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async () => {
    await hung.promise;
    return new Response();
  });
  try {
    const metrics = createOtlpMetrics({
      url: `http://127.0.0.1:${collector.addr.port}/v1/metrics`,
      serviceName: "svc",
      serviceVersion: "0",
      intervalMs: 3_600_000,
      shutdownTimeoutMs: 100,
    });
    metrics.meter.createCounter("c").add(1);
    const started = performance.now();
    await metrics.shutdown();
    assert.ok(performance.now() - started < 5_000);
  } finally {
    hung.resolve();
    await collector.shutdown();
  }
});

Deno.test("rejects intervals and timeouts that are not positive", () => {
  for (const bad of [{ intervalMs: 0 }, { timeoutMs: 0 }, { intervalMs: -1 }]) {
    assert.throws(
      () =>
        createOtlpMetrics({
          url: "http://127.0.0.1:1/v1/metrics",
          serviceName: "s",
          serviceVersion: "0",
          ...bad,
        }),
      /Cannot export metrics: intervalMs and timeoutMs must be positive/,
    );
  }
});
