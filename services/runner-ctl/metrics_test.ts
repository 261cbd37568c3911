import assert from "node:assert/strict";
import { envMs, measuredFetch, NO_METRICS, otlpMetricsUrl } from "./metrics.ts";

const envOf = (vars: Record<string, string>) => (k: string) => vars[k];

Deno.test("otlpMetricsUrl(): the metrics endpoint as is, else the base one + /v1/metrics, else off", () => {
  assert.equal(otlpMetricsUrl(envOf({})), undefined);
  assert.equal(otlpMetricsUrl(envOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "  " })), undefined);
  assert.equal(
    otlpMetricsUrl(envOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318/" })),
    "http://127.0.0.1:4318/v1/metrics",
  );
  assert.equal(
    otlpMetricsUrl(envOf({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318",
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "https://b/custom",
    })),
    "https://b/custom",
  );
  const notGranted = () => {
    throw new Deno.errors.NotCapable("Requires env access");
  };
  assert.equal(otlpMetricsUrl(notGranted), undefined, "a run without the OTEL_* grant: off");
});

Deno.test("envMs(): a positive integer of ms, else the fallback", () => {
  const at = (v: string | undefined) => envMs(() => v, "X", 60_000);
  assert.equal(at("1"), 1);
  assert.equal(at("100"), 100);
  for (const v of [undefined, "", " ", "0", "-1", "1.5", "1e3x", "abc"]) {
    assert.equal(at(v), 60_000, String(v));
  }
});

Deno.test("measuredFetch(): every call measured, with its status or its error", async () => {
  const seen: unknown[][] = [];
  const metrics = {
    ...NO_METRICS,
    githubCall: (...a: unknown[]) => void seen.push(a),
  };
  const ok = measuredFetch(() => Promise.resolve(new Response("x", { status: 201 })), metrics);
  await (await ok("https://api.github.com/x", { method: "POST" })).body?.cancel();
  const boom = new TypeError("fetch failed");
  const failing = measuredFetch(() => Promise.reject(boom), metrics);
  await assert.rejects(failing("https://api.github.com/y"), TypeError);
  assert.deepEqual(seen.map(([m, u, , s, e]) => [m, u, s, e]), [
    ["POST", "https://api.github.com/x", 201, undefined],
    ["GET", "https://api.github.com/y", undefined, boom],
  ]);
  assert.ok(seen.every((a) => typeof a[2] === "number" && a[2] >= 0));
});
