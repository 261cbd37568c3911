import assert from "node:assert/strict";
import { planListeners, sameListenAddress } from "./listener_plan.ts";

const base = { api: ":8080", metricsAddr: ":9090", controlAddr: "" };

Deno.test("planListeners opens api and metrics by default and co-locates control", () => {
  assert.deepEqual(planListeners(base), { api: ":8080", metrics: ":9090" });
  assert.deepEqual(planListeners({ ...base, metricsAddr: "" }), { api: ":8080" });
});

Deno.test("planListeners rejects a control address equal to the API or metrics address", () => {
  assert.throws(() => planListeners({ ...base, controlAddr: ":8080" }), /--control-addr.*--addr/);
  assert.throws(
    () => planListeners({ ...base, controlAddr: "127.0.0.1:9090" }),
    /--control-addr.*--metrics-addr/,
  );
  assert.throws(() => planListeners({ ...base, metricsAddr: ":8080" }), /--metrics-addr/);
  assert.equal(planListeners({ ...base, controlAddr: "127.0.0.1:8081" }).control, "127.0.0.1:8081");
});

Deno.test("sameListenAddress treats wildcards as overlapping and port 0 as always free", () => {
  assert.equal(sameListenAddress(":8080", "127.0.0.1:8080"), true);
  assert.equal(sameListenAddress("127.0.0.1:8080", "127.0.0.2:8080"), false);
  assert.equal(sameListenAddress("127.0.0.1:0", "127.0.0.1:0"), false);
});
