import assert from "node:assert/strict";
import { selfSignedCertificate } from "./self_signed_cert.ts";

Deno.test("the self-signed certificate serves TLS that a client trusting it accepts", async () => {
  const tls = await selfSignedCertificate();
  assert.match(tls.cert, /^-----BEGIN CERTIFICATE-----/);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: tls.cert, key: tls.key, onListen() {} },
    () => new Response("hello"),
  );
  const client = Deno.createHttpClient({ caCerts: [tls.cert] });
  try {
    for (const host of ["localhost", "127.0.0.1"]) {
      const res = await fetch(`https://${host}:${server.addr.port}/`, { client });
      assert.equal(await res.text(), "hello");
    }
  } finally {
    client.close();
    await server.shutdown();
  }
});
