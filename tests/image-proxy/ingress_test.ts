/**
 * The ingress recipe (deploy/image-proxy/nginx.conf.template) end to end: Debian's nginx rendered
 * on loopback high ports in front of the proxy process and a signature-checking s3rver. TLS and
 * plain HTTP both serve (no redirect: Incus downloads artifacts over http:// first), a second pull
 * of an artifact is a cache hit that never reaches the proxy, and the catalog, once stale, is
 * revalidated with the proxy's ETag (a 304 from the proxy). Skipped, saying why, without nginx or
 * openssl.
 */
import assert from "node:assert/strict";
import { skipSuite, waitUntil } from "@svc/testing";
import { startProxyProcess, startStore } from "./_test_support.ts";
import {
  ingressMissing,
  ingressTemplate,
  renderIngress,
  startIngress,
} from "./_ingress_support.ts";

Deno.test("renderIngress replaces every placeholder and refuses a missing one", async () => {
  const template = await ingressTemplate();
  const names = new Set([...template.matchAll(/\{\{([A-Z_]+)\}\}/g)].map((m) => m[1]));
  assert.deepEqual(
    [...names].sort(),
    ["CACHE_DIR", "CERT", "HTTPS_LISTEN", "HTTP_LISTEN", "KEY", "RUN_DIR", "UPSTREAM"],
  );
  const values = Object.fromEntries([...names].map((n) => [n, `v-${n}`]));
  assert.doesNotMatch(renderIngress(template, values), /\{\{/);
  assert.throws(
    () => renderIngress(template, { ...values, UPSTREAM: undefined! }),
    /^Error: Cannot render the ingress: no value for UPSTREAM$/,
  );
});

Deno.test({
  name:
    "nginx in front of image-proxy: TLS and plain HTTP, artifacts cached, the catalog revalidated",
  ignore: skipSuite({ module: import.meta.url, needs: ingressMissing() }),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const store = await startStore();
    const artifact = new Uint8Array(1024 * 1024 + 3).map((_, i) => (i * 31) & 0xff);
    await store.put("images/x/20250824_13:00/rootfs.squashfs", artifact);
    const proxy = await startProxyProcess({
      endpoint: store.s3.endpoint,
      // A catalog that goes stale within the test (the default is 60s).
      args: ["--cache.catalog-control", "public, max-age=1, must-revalidate"],
    });
    const ingress = await startIngress(new URL(proxy.url).host);
    const { client, https, http } = ingress;
    const objectRecords = () =>
      proxy.records().filter((r) => r.msg === "request completed" && r["http.route"] === "object");
    try {
      const ARTIFACT = "/images/x/20250824_13:00/rootfs.squashfs";
      await t.step(
        "an artifact over plain HTTP: no redirect, a miss, then a hit the proxy never sees",
        async () => {
          const first = await fetch(http + ARTIFACT, { redirect: "manual" });
          assert.equal(first.status, 200);
          assert.equal(first.headers.get("x-cache-status"), "MISS");
          assert.equal(first.headers.get("cache-control"), "public, max-age=31536000, immutable");
          assert.deepEqual(new Uint8Array(await first.arrayBuffer()), artifact);
          await waitUntil(() => objectRecords().length === 1, { what: "the proxy's record" });
          const second = await fetch(http + ARTIFACT, { redirect: "manual" });
          assert.equal(second.status, 200);
          assert.equal(second.headers.get("x-cache-status"), "HIT");
          assert.deepEqual(new Uint8Array(await second.arrayBuffer()), artifact);
          // Over TLS, the same cache entry.
          const tls = await fetch(https + ARTIFACT, { client });
          assert.equal(tls.headers.get("x-cache-status"), "HIT");
          assert.deepEqual(new Uint8Array(await tls.arrayBuffer()), artifact);
          assert.equal(objectRecords().length, 1, "the hits never reached the proxy");
        },
      );
      await t.step(
        "the catalog over TLS, gzipped, revalidated with the proxy's ETag once stale",
        async () => {
          const url = `${https}/streams/v1/index.json`;
          const headers = { "accept-encoding": "gzip" };
          const first = await fetch(url, { client, headers });
          assert.equal(first.status, 200);
          assert.equal(first.headers.get("x-cache-status"), "MISS");
          assert.equal(first.headers.get("content-encoding"), "gzip");
          const text = await first.text(); // fetch decompresses
          assert.equal(JSON.parse(text).format, "index:1.0");
          await waitUntil(() => objectRecords().length === 2, { what: "the catalog's record" });
          const before = 2; // the artifact's miss and the catalog's
          // Fresh (HIT) until nginx's clock, in whole seconds, passes max-age=1; then REVALIDATED.
          let again: Response | undefined;
          const statuses: string[] = [];
          await waitUntil(async () => {
            again = await fetch(url, { client, headers });
            statuses.push(again.headers.get("x-cache-status")!);
            if (statuses.at(-1) === "REVALIDATED") return true;
            await again.body?.cancel();
            return false;
          }, { what: "a revalidation", timeoutMs: 10_000, intervalMs: 100 });
          assert.ok(statuses.slice(0, -1).every((s) => s === "HIT"), statuses.join());
          assert.equal(again!.status, 200);
          assert.equal(await again!.text(), text);
          await waitUntil(() => objectRecords().length === before + 1, {
            what: "the revalidation",
          });
          const revalidation = objectRecords().at(-1)!;
          assert.equal(revalidation["http.response.status_code"], 304);
        },
      );
      await t.step("the proxy's probes are not exposed", async () => {
        for (const path of ["/healthz", "/readyz"]) {
          const res = await fetch(https + path, { client });
          assert.equal(res.status, 404);
          await res.body?.cancel();
        }
      });
      const log = await ingress.accessLog();
      assert.match(log, / GET 200 HIT /);
      assert.match(log, / GET 200 REVALIDATED /);
    } finally {
      await ingress.stop();
      await proxy.stop();
      await store.close();
    }
  },
});
