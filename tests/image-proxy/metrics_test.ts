/**
 * Metrics end to end: the proxy exports OTLP/HTTP protobuf to a local receiver that decodes it;
 * instrument names, units, kinds and attributes are the contract's (docs/image-proxy.md#metrics).
 * Without `metrics.endpoint` nothing is exported, and a failing collector never affects serving.
 */
import assert from "node:assert/strict";
import { type DecodedMetric, startOtlpReceiver } from "@svc/testing/otlp-receiver";
import { faultsFor, startProxyProcess, startStore } from "./_test_support.ts";

const EXPECTED: Record<string, { unit: string; kind: DecodedMetric["kind"] }> = {
  "http.server.request.duration": { unit: "s", kind: "histogram" },
  "http.server.response.body.size": { unit: "By", kind: "histogram" },
  "http.server.active_requests": { unit: "{request}", kind: "sum" },
  "imgproxy.s3.requests": { unit: "{request}", kind: "sum" },
  "imgproxy.s3.request.duration": { unit: "s", kind: "histogram" },
  "imgproxy.s3.retries": { unit: "{retry}", kind: "sum" },
  "imgproxy.s3.transferred": { unit: "By", kind: "sum" },
  "imgproxy.streams.rejected": { unit: "{stream}", kind: "sum" },
  "imgproxy.streams.incomplete": { unit: "{stream}", kind: "sum" },
  "imgproxy.readiness": { unit: "1", kind: "gauge" },
};

function latest(requests: DecodedMetric[][]): Map<string, DecodedMetric> {
  const out = new Map<string, DecodedMetric>();
  for (const batch of requests) for (const m of batch) out.set(m.name, m);
  return out;
}

Deno.test("the proxy exports the contract's instruments over OTLP/HTTP protobuf", async () => {
  const receiver = startOtlpReceiver();
  const store = await startStore();
  const faults = await faultsFor(store);
  await store.put("big.bin", new Uint8Array(16 << 20));
  const collector = new URL(receiver.url).host;
  const proxy = await startProxyProcess({
    endpoint: faults.endpoint,
    extraHosts: [collector],
    args: [
      "--metrics.endpoint",
      collector,
      "--metrics-insecure",
      "--metrics.interval",
      "200ms",
      "--proxy.max-streams",
      "1",
      // Generous: the resets below fail each attempt at once, whatever this is, while a short
      // one (it was 300ms) cut the held download whenever the local S3 server was starved of
      // CPU for that long on a busy machine (CI runs three test files at once on two cores).
      "--proxy.upstream-idle-timeout",
      "10s",
    ],
  });
  try {
    const held = await fetch(proxy.url + "/big.bin"); // not read yet: holds the only slot
    const refused = await fetch(proxy.url + "/streams/v1/index.json");
    assert.equal(refused.status, 503);
    await refused.body?.cancel();
    await held.arrayBuffer();
    await (await fetch(proxy.url + "/missing")).body?.cancel();
    await (await fetch(proxy.url + "/healthz")).body?.cancel();
    faults.mode = "reset";
    await (await fetch(proxy.url + "/streams/v1/index.json")).body?.cancel();
    faults.mode = "pass";
    const deadline = Date.now() + 30_000;
    let metrics = latest(receiver.requests);
    while (
      !(metrics.get("imgproxy.s3.retries") && metrics.get("imgproxy.streams.rejected") &&
        metrics.get("imgproxy.readiness")?.points[0]?.value === 1) && Date.now() < deadline
    ) {
      await receiver.next();
      metrics = latest(receiver.requests);
    }
    assert.ok(receiver.contentTypes.every((t) => t === "application/x-protobuf"));
    for (const [name, want] of Object.entries(EXPECTED)) {
      const m = metrics.get(name);
      if (name === "imgproxy.streams.incomplete") continue; // only after a broken download
      assert.ok(m, `${name} exported`);
      assert.equal(m.unit, want.unit, name);
      assert.equal(m.kind, want.kind, name);
      assert.equal(m.resource["service.name"], "image-proxy");
      assert.equal(typeof m.resource["service.version"], "string");
    }
    const duration = metrics.get("http.server.request.duration")!;
    const routes = new Set(duration.points.map((p) => p.attributes["http.route"]));
    assert.deepEqual(
      [...routes].sort(),
      ["health", "object", "readiness"].filter((r) => routes.has(r)),
    );
    for (const p of duration.points) {
      assert.deepEqual(Object.keys(p.attributes).sort(), [
        "http.request.method",
        "http.response.status_code",
        "http.route",
        "network.protocol.name",
        "network.protocol.version",
        "url.scheme",
      ]);
    }
    const statuses = duration.points.map((p) => p.attributes["http.response.status_code"]);
    for (const status of [200, 404, 503]) assert.ok(statuses.includes(status), `status ${status}`);
    assert.deepEqual(metrics.get("http.server.active_requests")!.points[0].attributes, {});
    const s3 = metrics.get("imgproxy.s3.requests")!;
    for (const p of s3.points) {
      assert.ok(["GetObject", "HeadObject"].includes(p.attributes["aws.operation"] as string));
      assert.ok(["success", "error"].includes(p.attributes.outcome as string));
    }
    assert.ok(s3.points.some((p) => p.attributes["error.kind"] === "not_found"));
    assert.ok(s3.points.some((p) => p.attributes["error.kind"] === "unavailable"));
    const retries = metrics.get("imgproxy.s3.retries")!;
    assert.ok(retries.points.some((p) => p.value! >= 2), "the reset was retried");
    assert.equal(metrics.get("imgproxy.streams.rejected")!.points[0].value, 1);
    assert.ok(metrics.get("imgproxy.s3.transferred")!.points.some((p) => p.value! > 0));
  } finally {
    assert.equal(await proxy.stop(), 0);
    await faults.close();
    await store.close();
    await receiver.close();
  }
});

Deno.test("a failing collector never affects serving; warnings are sanitized", async () => {
  const receiver = startOtlpReceiver();
  receiver.respondWith(503);
  const store = await startStore();
  const collector = new URL(receiver.url).host;
  const proxy = await startProxyProcess({
    endpoint: store.s3.endpoint,
    extraHosts: [collector],
    args: ["--metrics.endpoint", collector, "--metrics-insecure", "--metrics.interval", "100ms"],
    env: { OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer collector-secret" },
  });
  try {
    for (let i = 0; i < 5; i++) {
      const res = await fetch(proxy.url + "/streams/v1/index.json");
      assert.equal(res.status, 200);
      await res.arrayBuffer();
      // real clock: requests 150 ms apart span several 100 ms export intervals, each refused by the collector
      await new Promise((r) => setTimeout(r, 150));
    }
    assert.equal((await proxy.readyz()).status, 200);
  } finally {
    assert.equal(await proxy.stop(), 0);
    await store.close();
    await receiver.close();
  }
  assert.ok(receiver.contentTypes.length > 0, "exports were attempted");
  const warnings = proxy.records().filter((r) => r.msg === "metric export failed");
  assert.equal(warnings.length, 1, "at most one warning a minute");
  assert.equal(warnings[0].component, "metrics");
  assert.ok(!proxy.output().includes("collector-secret"));
});

Deno.test("without metrics.endpoint nothing is exported", async () => {
  const receiver = startOtlpReceiver();
  const store = await startStore();
  const proxy = await startProxyProcess({
    endpoint: store.s3.endpoint,
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: new URL(receiver.url).origin },
  });
  try {
    await (await fetch(proxy.url + "/streams/v1/index.json")).arrayBuffer();
    // real clock: time for an exporter, were one running, to send: nothing must arrive
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    assert.equal(await proxy.stop(), 0);
    await store.close();
    await receiver.close();
  }
  assert.equal(receiver.contentTypes.length, 0);
});
