import assert from "node:assert/strict";
import { selfSignedCert } from "./tls.ts";

Deno.test("selfSignedCert writes a certificate a TLS server on loopback serves", async () => {
  const dir = await Deno.makeTempDir({ prefix: "testing-tls-" });
  try {
    const files = await selfSignedCert(dir);
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      cert: await Deno.readTextFile(files.cert),
      key: await Deno.readTextFile(files.key),
      onListen() {},
    }, () => new Response("ok"));
    try {
      const client = Deno.createHttpClient({ caCerts: [await Deno.readTextFile(files.cert)] });
      const res = await fetch(`https://localhost:${server.addr.port}/`, { client });
      assert.equal(await res.text(), "ok");
      client.close();
    } finally {
      await server.shutdown();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("selfSignedCert names openssl's complaint when it fails", async () => {
  await assert.rejects(
    selfSignedCert("/nonexistent/dir"),
    /Cannot make a certificate: openssl said/,
  );
});
