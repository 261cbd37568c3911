import assert from "node:assert/strict";
import { decodeBase64 } from "@svc/shared/base64";
import { skipSuite } from "@svc/testing";
import { keyCertificate, selfSignedCertificate } from "./self_signed_cert.ts";

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

const KEY_KINDS: [string, EcKeyGenParams | RsaHashedKeyGenParams | { name: "Ed25519" }][] = [
  ["RSA", {
    name: "RSA-PSS",
    hash: "SHA-384",
    modulusLength: 2048,
    publicExponent: new Uint8Array([1, 0, 1]),
  }],
  ["P-256", { name: "ECDSA", namedCurve: "P-256" }],
  ["P-384", { name: "ECDSA", namedCurve: "P-384" }],
  ["P-521", { name: "ECDSA", namedCurve: "P-521" }],
  ["Ed25519", { name: "Ed25519" }],
];

async function privateJwk(params: (typeof KEY_KINDS)[number][1]): Promise<JsonWebKey> {
  const pair = await crypto.subtle.generateKey(params, true, ["sign", "verify"]) as CryptoKeyPair;
  const { key_ops: _ops, ext: _ext, alg: _alg, ...jwk } = await crypto.subtle.exportKey(
    "jwk",
    pair.privateKey,
  );
  return jwk;
}

function opensslMissing(): string | undefined {
  try {
    const { code } = new Deno.Command("openssl", { args: ["version"], stdout: "null" })
      .outputSync();
    return code === 0 ? undefined : "the openssl command";
  } catch {
    return "the openssl command";
  }
}

Deno.test({
  name: "a key's certificate is self-signed by it and holds its public key (openssl checks)",
  ignore: skipSuite({ module: import.meta.url, part: "key certificates", needs: opensslMissing() }),
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      for (const [kind, params] of KEY_KINDS) {
        const jwk = await privateJwk(params);
        const der = await keyCertificate(jwk);
        const certFile = `${dir}/${kind}.der`;
        await Deno.writeFile(certFile, der);
        const pemFile = `${dir}/${kind}.pem`;
        const run = (args: string[]) =>
          new Deno.Command("openssl", { args, stdout: "piped", stderr: "piped" }).outputSync();
        assert.equal(run(["x509", "-inform", "der", "-in", certFile, "-out", pemFile]).code, 0);
        const verified = run(["verify", "-CAfile", pemFile, "-check_ss_sig", pemFile]);
        assert.equal(new TextDecoder().decode(verified.stdout).trim(), `${pemFile}: OK`, kind);
        const text = new TextDecoder().decode(
          run(["x509", "-in", pemFile, "-noout", "-text"]).stdout,
        );
        assert.match(text, /Subject: CN ?= ?mock-oidc/);
        assert.match(text, /Not After : Dec 31 23:59:59 2049 GMT/);
        // the certificate's public key is the JWK's
        const publicJwk = Object.fromEntries(
          Object.entries(jwk).filter(([k]) => !["d", "p", "q", "dp", "dq", "qi"].includes(k)),
        );
        const spki = new Uint8Array(
          await crypto.subtle.exportKey(
            "spki",
            await crypto.subtle.importKey("jwk", publicJwk, params, true, ["verify"]),
          ),
        );
        const certSpki = run(["x509", "-in", pemFile, "-noout", "-pubkey"]);
        const pemBody = new TextDecoder().decode(certSpki.stdout).replace(
          /-----[^-]+-----|\s/g,
          "",
        );
        assert.deepEqual(decodeBase64(pemBody), spki, kind);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("a key's certificate: the same bytes again for RSA and Ed25519, another for another key", async () => {
  for (const [kind, params] of [KEY_KINDS[0], KEY_KINDS[4]]) {
    const jwk = await privateJwk(params);
    assert.deepEqual(await keyCertificate(jwk), await keyCertificate(jwk), kind);
    assert.notDeepEqual(await keyCertificate(await privateJwk(params)), await keyCertificate(jwk));
  }
});

Deno.test("a key's certificate: a key type it cannot certify is refused", async () => {
  await assert.rejects(keyCertificate({ kty: "oct", k: "AAAA" }), {
    message: "Cannot certify a oct undefined key",
  });
  await assert.rejects(keyCertificate({ kty: "OKP", crv: "X25519", x: "AAAA" }), {
    message: "Cannot certify a OKP X25519 key",
  });
});
