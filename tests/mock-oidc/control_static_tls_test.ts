import assert from "node:assert/strict";
import { selfSignedCert } from "@svc/testing/tls";
import { startMock } from "./_test_support.ts";
import { runShipped } from "../_shipped.ts";

Deno.test("/static/* serves staticAssetsPath files; traversal, symlink escape and index are 404", async () => {
  const base = await Deno.makeTempDir({ prefix: "mock-oidc-static-e2e-" });
  try {
    await Deno.mkdir(`${base}/assets/css`, { recursive: true });
    await Deno.writeTextFile(`${base}/assets/css/site.css`, "body{}");
    await Deno.writeTextFile(`${base}/secret.txt`, "secret");
    await Deno.symlink(`${base}/secret.txt`, `${base}/assets/link.txt`);
    const mock = await startMock({
      env: { JSON_CONFIG: JSON.stringify({ staticAssetsPath: `${base}/assets` }) },
    });
    try {
      const css = await fetch(`${mock.url}/static/css/site.css`);
      assert.equal(css.status, 200);
      assert.equal(css.headers.get("content-type"), "text/css; charset=utf-8");
      assert.equal(await css.text(), "body{}");
      for (
        const path of [
          "/static/%2e%2e/secret.txt",
          "/static/link.txt",
          "/static/css/",
          "/static/css",
        ]
      ) {
        const res = await fetch(`${mock.url}${path}`);
        assert.equal(res.status, 404, path);
        await res.body?.cancel();
      }
    } finally {
      await mock.stop();
    }
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("--tls-cert-file/--tls-key-file serve the API over HTTPS; the metrics listener stays HTTP", async () => {
  const dir = await Deno.makeTempDir({ prefix: "mock-oidc-tls-" });
  try {
    const files = await selfSignedCert(dir);
    const mock = await startMock({
      env: { MOCK_OIDC_TLS_CERT_FILE: files.cert, MOCK_OIDC_TLS_KEY_FILE: files.key },
      healthPath: null,
    });
    const client = Deno.createHttpClient({ caCerts: [await Deno.readTextFile(files.cert)] });
    try {
      assert.match(mock.url, /^https:/);
      const res = await fetch(`${mock.url}/_mock/mint`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ issuer: "tls" }),
        client,
      });
      assert.equal(res.status, 200);
      assert.match((await res.json()).issuer, /^https:\/\/.*\/tls$/);
      assert.match(mock.urls.metrics, /^http:/);
    } finally {
      client.close();
      await mock.stop();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a TLS certificate without its key is a startup error", async () => {
  const out = await runShipped("mock-oidc", {
    args: ["--addr", "127.0.0.1:0", "--tls-cert-file", "/nonexistent.pem"],
    env: { JSON_CONFIG: "{}" },
  });
  assert.notEqual(out.code, 0);
  assert.match(out.stdout + out.stderr, /tls/i);
});
