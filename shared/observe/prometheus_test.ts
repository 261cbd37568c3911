import assert from "node:assert/strict";
import { Counter, Gauge, Histogram, mergeSnapshots, Registry } from "./prometheus.ts";

Deno.test("Registry renders counters in the text exposition format", async () => {
  const registry = new Registry();
  registry.setDefaultLabels({ service: "svc" });
  const c = new Counter({
    name: "reqs_total",
    help: "Requests\nserved \\ total",
    labelNames: ["route", "status"],
    registers: [registry],
  });
  c.inc({ route: "/a", status: "200" });
  c.inc({ route: "/a", status: "200" }, 2);
  c.inc({ route: 'q"\\\n', status: 500 });
  assert.equal(
    await registry.metrics(),
    "# HELP reqs_total Requests\\nserved \\\\ total\n" +
      "# TYPE reqs_total counter\n" +
      'reqs_total{route="/a",status="200",service="svc"} 3\n' +
      'reqs_total{route="q\\"\\\\\\n",status="500",service="svc"} 1\n\n',
  );
  assert.equal(registry.contentType, "text/plain; version=0.0.4; charset=utf-8");
});

Deno.test("Counter refuses to go down and rejects unknown labels", () => {
  const c = new Counter({ name: "c_total", help: "c", labelNames: ["a"] });
  assert.throws(() => c.inc(-1), RangeError);
  assert.throws(() => c.inc({ b: "x" } as never), /unknown label "b"/);
  assert.throws(() => new Counter({ name: "bad name", help: "x" }), TypeError);
});

Deno.test("an unlabelled metric shows 0 before its first update", async () => {
  const registry = new Registry();
  new Counter({ name: "zero_total", help: "z", registers: [registry] });
  new Counter({ name: "labelled_total", help: "l", labelNames: ["x"], registers: [registry] });
  const text = await registry.metrics();
  assert.match(text, /^zero_total 0$/m);
  assert.doesNotMatch(text, /^labelled_total/m);
});

Deno.test("Gauge sets, increments and decrements", async () => {
  const registry = new Registry();
  const g = new Gauge({ name: "depth", help: "d", registers: [registry] });
  g.set(5);
  g.inc();
  g.dec(2);
  assert.match(await registry.metrics(), /^depth 4$/m);
  g.set(0.5);
  assert.match(await registry.metrics(), /^depth 0.5$/m);
});

Deno.test("Histogram renders cumulative buckets, +Inf, sum and count", async () => {
  const registry = new Registry();
  const h = new Histogram({
    name: "lat_seconds",
    help: "l",
    labelNames: ["route"],
    buckets: [1, 0.1],
    registers: [registry],
  });
  h.observe({ route: "/" }, 0.05);
  h.observe({ route: "/" }, 0.1);
  h.observe({ route: "/" }, 0.5);
  h.observe({ route: "/" }, 7);
  assert.equal(
    await registry.metrics(),
    "# HELP lat_seconds l\n# TYPE lat_seconds histogram\n" +
      'lat_seconds_bucket{route="/",le="0.1"} 2\n' +
      'lat_seconds_bucket{route="/",le="1"} 3\n' +
      'lat_seconds_bucket{route="/",le="+Inf"} 4\n' +
      'lat_seconds_sum{route="/"} 7.65\n' +
      'lat_seconds_count{route="/"} 4\n\n',
  );
});

Deno.test("Registry refuses two metrics with one name", () => {
  const registry = new Registry();
  new Gauge({ name: "g", help: "g", registers: [registry] });
  assert.throws(
    () => new Gauge({ name: "g", help: "g", registers: [registry] }),
    /already registered/,
  );
});

Deno.test("mergeSnapshots() adds up the registries of several isolates", async (t) => {
  function worker(hits: number, latencies: number[], inFlight: number): Registry {
    const registry = new Registry();
    const c = new Counter({
      name: "req_total",
      help: "Requests",
      labelNames: ["route"],
      registers: [registry],
    });
    c.inc({ route: "/a" }, hits);
    c.inc({ route: "/b" });
    const h = new Histogram({
      name: "lat_seconds",
      help: "Lat",
      buckets: [0.1, 1],
      registers: [registry],
    });
    for (const l of latencies) h.observe(l);
    new Gauge({ name: "in_flight", help: "In flight", registers: [registry] }).set(inFlight);
    return registry;
  }
  const snapshots = [worker(2, [0.05, 0.5], 1), worker(3, [5], 2)].map((r) =>
    structuredClone(r.snapshot()) // as postMessage delivers it
  );
  const text = await mergeSnapshots(snapshots).metrics();
  await t.step("counters per series", () => {
    assert.match(text, /^req_total\{route="\/a"\} 5$/m);
    assert.match(text, /^req_total\{route="\/b"\} 2$/m);
  });
  await t.step("histogram buckets, sums and counts", () => {
    assert.match(text, /^lat_seconds_bucket\{le="0.1"\} 1$/m);
    assert.match(text, /^lat_seconds_bucket\{le="1"\} 2$/m);
    assert.match(text, /^lat_seconds_bucket\{le="\+Inf"\} 3$/m);
    assert.match(text, /^lat_seconds_sum 5.55$/m);
    assert.match(text, /^lat_seconds_count 3$/m);
  });
  await t.step("gauges", () => assert.match(text, /^in_flight 3$/m));
  await t.step("a snapshot whose buckets differ is skipped, not mixed in", async () => {
    const other = new Registry();
    new Histogram({ name: "lat_seconds", help: "Lat", buckets: [2], registers: [other] }).observe(
      1,
    );
    const merged = await mergeSnapshots([...snapshots, other.snapshot()]).metrics();
    assert.match(merged, /^lat_seconds_count 3$/m);
  });
  await t.step("the sources are left unchanged", async () => {
    const source = worker(1, [], 0);
    mergeSnapshots([source.snapshot(), source.snapshot()]);
    assert.match(await source.metrics(), /^req_total\{route="\/a"\} 1$/m);
  });
});

Deno.test("a frozen label object finds its series by identity; a mutable one by its values", async () => {
  const registry = new Registry();
  const c = new Counter({
    name: "hits_total",
    help: "h",
    labelNames: ["a"],
    registers: [registry],
  });
  const frozen = Object.freeze({ a: "x" });
  c.inc(frozen);
  c.inc(frozen);
  c.inc({ a: "x" }); // an equal object reaches the same series
  const mutable: { a: string } = { a: "x" };
  c.inc(mutable);
  mutable.a = "y"; // mutable: looked up by its values again, so it now counts into "y"
  c.inc(mutable);
  assert.equal(
    await registry.metrics(),
    '# HELP hits_total h\n# TYPE hits_total counter\nhits_total{a="x"} 4\nhits_total{a="y"} 1\n\n',
  );
  c.reset(); // forgets the identity shortcut with the series
  c.inc(frozen);
  assert.equal(
    await registry.metrics(),
    '# HELP hits_total h\n# TYPE hits_total counter\nhits_total{a="x"} 1\n\n',
  );
  assert.throws(() => c.inc(Object.freeze({ b: "x" }) as never), /unknown label "b"/);
});
