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
import { freePort, startProxyProcess, startStore } from "./_test_support.ts";

const TEMPLATE = new URL("../../deploy/image-proxy/nginx.conf.template", import.meta.url);
const NGINX = "/usr/sbin/nginx";

function missing(): string | undefined {
  for (const [path, pkg] of [[NGINX, "nginx"], ["/usr/bin/openssl", "openssl"]]) {
    try {
      Deno.statSync(path);
    } catch {
      return `${pkg} (apt-get install -y ${pkg})`;
    }
  }
  return undefined;
}

/** The template with every `{{NAME}}` replaced; an unknown or missing name is an error. */
function renderIngress(template: string, values: Record<string, string>): string {
  const out = template.replace(/\{\{([A-Z_]+)\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`Cannot render the ingress: no value for ${name}`);
    return value;
  });
  return out;
}

async function run(cmd: string, args: string[]) {
  const out = await new Deno.Command(cmd, { args, stdout: "null", stderr: "piped" }).output();
  assert.ok(out.success, `${cmd} failed: ${new TextDecoder().decode(out.stderr)}`);
}

Deno.test("renderIngress replaces every placeholder and refuses a missing one", async () => {
  const template = await Deno.readTextFile(TEMPLATE);
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
  ignore: skipSuite({ module: import.meta.url, needs: missing() }),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "ingress-" });
    // nginx's workers (nobody, when the master is root) write the cache and temp files.
    await Deno.chmod(dir, 0o777);
    const store = await startStore();
    const artifact = new Uint8Array(1024 * 1024 + 3).map((_, i) => (i * 31) & 0xff);
    await store.put("images/x/20250824_13:00/rootfs.squashfs", artifact);
    const proxy = await startProxyProcess({
      endpoint: store.s3.endpoint,
      // A catalog that goes stale within the test (the default is 60s).
      args: ["--cache.catalog-control", "public, max-age=1, must-revalidate"],
    });
    const [httpPort, httpsPort] = [await freePort(), await freePort()];
    await run("openssl", [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=DNS:localhost,IP:127.0.0.1",
      "-addext",
      "basicConstraints=critical,CA:FALSE",
      "-addext",
      "extendedKeyUsage=serverAuth",
      "-keyout",
      `${dir}/key.pem`,
      "-out",
      `${dir}/cert.pem`,
    ]);
    const conf = renderIngress(await Deno.readTextFile(TEMPLATE), {
      HTTP_LISTEN: `127.0.0.1:${httpPort}`,
      HTTPS_LISTEN: `127.0.0.1:${httpsPort} ssl`,
      UPSTREAM: new URL(proxy.url).host,
      CERT: `${dir}/cert.pem`,
      KEY: `${dir}/key.pem`,
      RUN_DIR: dir,
      CACHE_DIR: `${dir}/cache`,
    });
    await Deno.writeTextFile(`${dir}/nginx.conf`, conf);
    await run(NGINX, ["-t", "-q", "-p", dir, "-e", `${dir}/error.log`, "-c", `${dir}/nginx.conf`]);
    const nginx = new Deno.Command(NGINX, {
      args: ["-p", dir, "-e", `${dir}/error.log`, "-c", `${dir}/nginx.conf`, "-g", "daemon off;"],
      stdout: "null",
      stderr: "null",
    }).spawn();
    const client = Deno.createHttpClient({ caCerts: [await Deno.readTextFile(`${dir}/cert.pem`)] });
    const https = `https://localhost:${httpsPort}`;
    const http = `http://127.0.0.1:${httpPort}`;
    const objectRecords = () =>
      proxy.records().filter((r) => r.msg === "request completed" && r["http.route"] === "object");
    try {
      await waitUntil(
        () =>
          fetch(`${http}/healthz`).then((r) => (r.body?.cancel(), r.status === 404), () => false),
        { what: "nginx listening", timeoutMs: 10_000, intervalMs: 20 },
      );
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
      const log = await Deno.readTextFile(`${dir}/access.log`);
      assert.match(log, / GET 200 HIT /);
      assert.match(log, / GET 200 REVALIDATED /);
    } finally {
      client.close();
      nginx.kill("SIGTERM");
      await nginx.status;
      await proxy.stop();
      await store.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
