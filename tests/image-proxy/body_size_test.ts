/**
 * The bytes a client gets are the bytes the proxy reports: the `request completed` record's
 * `http.response.body.size` and the `http.server.response.body.size` histogram (exported over
 * OTLP to a local receiver) for an object, an error answer, `/healthz` and `/readyz`; HEAD sends
 * no body and reports 0.
 */
import assert from "node:assert/strict";
import { type DecodedMetric, startOtlpReceiver } from "@svc/testing/otlp-receiver";
import { startProxyProcess, startStore } from "./_test_support.ts";

Deno.test({
  name: "record and histogram carry the bytes sent, for every kind of answer",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const receiver = startOtlpReceiver();
    const store = await startStore();
    const collector = new URL(receiver.url).host;
    const proxy = await startProxyProcess({
      endpoint: store.s3.endpoint,
      extraHosts: [collector],
      args: ["--metrics.endpoint", collector, "--metrics-insecure", "--metrics.interval", "200ms"],
    });
    try {
      const cases = [
        { id: "size-object", path: "/streams/v1/index.json", route: "object", status: 200 },
        { id: "size-error", path: "/no/such/object", route: "object", status: 404 },
        { id: "size-health", path: "/healthz", route: "health", status: 200 },
        { id: "size-ready", path: "/readyz", route: "readiness", status: 200 },
      ];
      const sent = new Map<string, number>();
      for (const c of cases) {
        // identity: fetch would decompress a gzip catalog, and the record counts wire bytes
        const res = await fetch(proxy.url + c.path, {
          headers: { "x-request-id": c.id, "accept-encoding": "identity" },
        });
        assert.equal(res.status, c.status, c.path);
        const bytes = (await res.arrayBuffer()).byteLength;
        assert.ok(bytes > 0, `${c.path} has a body`);
        sent.set(c.id, bytes);
      }
      const head = await fetch(proxy.url + "/healthz", {
        method: "HEAD",
        headers: { "x-request-id": "size-head" },
      });
      assert.equal(head.status, 200);
      await head.body?.cancel();

      // The log records: one per request, each with the bytes its client read.
      const recordsBy = Date.now() + 30_000;
      const recordOf = async (id: string) => {
        for (;;) {
          assert.ok(Date.now() < recordsBy, `no record of ${id}`);
          const r = proxy.records().find((x) =>
            x.msg === "request completed" && x.request_id === id
          );
          if (r) return r;
          await receiver.next(); // the proxy is busy: wait for its next export
        }
      };
      for (const c of cases) {
        const record = await recordOf(c.id);
        assert.equal(record["http.response.body.size"], sent.get(c.id), c.path);
        assert.equal(record["http.response.status_code"], c.status, c.path);
      }
      assert.equal((await recordOf("size-head"))["http.response.body.size"], 0);

      // The histogram: cumulative per (route, status); every answer of one kind has the same
      // size (ids and probe bodies are of fixed length), so its sum is count × size.
      const pointOf = (m: DecodedMetric | undefined, route: string, status: number) =>
        m?.points.find((p) =>
          p.attributes["http.route"] === route &&
          p.attributes["http.response.status_code"] === status &&
          p.attributes["http.request.method"] === "GET"
        );
      const headPointOf = (m: DecodedMetric | undefined) =>
        m?.points.find((p) =>
          p.attributes["http.route"] === "health" && p.attributes["http.request.method"] === "HEAD"
        );
      let size: DecodedMetric | undefined;
      const deadline = Date.now() + 30_000;
      for (;;) {
        // A batch exported between the GETs and the HEAD has every GET point but not HEAD's:
        // wait for one that has all five.
        const batch = receiver.requests.at(-1) ?? [];
        size = batch.find((m) => m.name === "http.server.response.body.size");
        if (cases.every((c) => pointOf(size, c.route, c.status)) && headPointOf(size)) break;
        assert.ok(Date.now() < deadline, "the histogram never had every point");
        await receiver.next();
      }
      for (const c of cases) {
        const point = pointOf(size, c.route, c.status)!;
        assert.ok(point.count! >= 1, c.path);
        assert.equal(
          point.sum,
          point.count! * sent.get(c.id)!,
          `${c.path}: ${JSON.stringify(point)}`,
        );
      }
      // HEAD's point: a request with no body bytes.
      assert.equal(headPointOf(size)?.sum, 0);
    } finally {
      assert.equal(await proxy.stop(), 0);
      await store.close();
      await receiver.close();
    }
  },
});

Deno.test({
  name: "the process guard's count is exported (imgproxy.process.uncaught_errors)",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const receiver = startOtlpReceiver();
    const store = await startStore();
    const collector = new URL(receiver.url).host;
    const proxy = await startProxyProcess({
      endpoint: store.s3.endpoint,
      extraHosts: [collector],
      args: ["--metrics.endpoint", collector, "--metrics-insecure", "--metrics.interval", "200ms"],
    });
    try {
      let uncaught: DecodedMetric | undefined;
      const deadline = Date.now() + 30_000;
      while (!uncaught) {
        assert.ok(Date.now() < deadline, "imgproxy.process.uncaught_errors never exported");
        await receiver.next();
        uncaught = receiver.requests.at(-1)?.find((m) =>
          m.name === "imgproxy.process.uncaught_errors"
        );
      }
      assert.equal(uncaught.kind, "sum");
      assert.equal(uncaught.unit, "{error}");
      assert.deepEqual(
        uncaught.points.map((p) => [p.attributes.kind, p.value]).sort(),
        [["exception", 0], ["rejection", 0]],
      );
    } finally {
      assert.equal(await proxy.stop(), 0);
      await store.close();
      await receiver.close();
    }
  },
});
