import assert from "node:assert/strict";
import { sampleMirror } from "../../deploy/dev/image-proxy/mirror.ts";
import { startProxyProcess, startStore } from "./_test_support.ts";
import { downloadMirror } from "./simplestreams_client.ts";

Deno.test("a simplestreams client reads the dev mirror through the proxy, sha256 checked", async () => {
  const store = await startStore();
  const proxy = await startProxyProcess({ endpoint: store.s3.endpoint });
  try {
    const files = await downloadMirror(proxy.url);
    const images = (await sampleMirror()).filter((f) => f.path.startsWith("images/"));
    assert.equal(files.length, images.length);
    assert.deepEqual(files.map((f) => f.path).sort(), images.map((f) => f.path).sort());
    assert.ok(files.every((f) => f.version === "20250824_13:00"));
    assert.deepEqual(
      files.map((f) => f.product).sort(),
      [
        "alpine:3.20:amd64:default",
        "alpine:3.20:amd64:default",
        "debian:bookworm:amd64:cloud",
        "debian:bookworm:amd64:cloud",
      ],
    );
  } finally {
    assert.equal(await proxy.stop(), 0);
    await store.close();
  }
});

Deno.test("the simplestreams client refuses a file whose bytes do not match the catalogue", async () => {
  const store = await startStore();
  const proxy = await startProxyProcess({ endpoint: store.s3.endpoint });
  try {
    const mirror = await sampleMirror();
    const rootfs = mirror.find((f) => f.path.endsWith("rootfs.squashfs"))!;
    const tampered = rootfs.body.slice();
    tampered[0] ^= 0xff;
    await store.put(rootfs.path, tampered);
    await assert.rejects(downloadMirror(proxy.url), /sha256 mismatch/);
  } finally {
    assert.equal(await proxy.stop(), 0);
    await store.close();
  }
});
