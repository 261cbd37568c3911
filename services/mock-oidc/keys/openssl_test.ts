import assert from "node:assert/strict";
import { algorithmSpec } from "./algorithms.ts";
import { generatePrivateJwk } from "./key_material.ts";
import { createOpenSslSigner, DEFAULT_LIBCRYPTO, openSslUnavailable } from "./openssl.ts";
import { skipSuite } from "@svc/testing";

const missing = openSslUnavailable();
const suffix = missing ? ` (ignored: ${missing})` : "";
const ignore = skipSuite({
  module: import.meta.url,
  part: "OpenSSL signer",
  needs: missing && `OpenSSL's libcrypto through FFI (${missing})`,
});
const RS256 = algorithmSpec("RS256");
const data = new TextEncoder().encode("header.payload");

async function pkcs8Key(): Promise<Uint8Array> {
  const jwk = await generatePrivateJwk("RS256");
  const key = await crypto.subtle.importKey("jwk", jwk, RS256.webcrypto, true, ["sign"]);
  return new Uint8Array(await crypto.subtle.exportKey("pkcs8", key));
}

Deno.test("createOpenSslSigner names what is missing: the FFI grant or the library", () => {
  const ffi = Deno.permissions.querySync({ name: "ffi" }).state === "granted";
  const reason = ffi ? /cannot load libnope\.so\.9: / : /it needs --allow-ffi$/;
  assert.match(openSslUnavailable("libnope.so.9") ?? "", reason);
  assert.throws(
    () => createOpenSslSigner({ library: "libnope.so.9" }),
    new RegExp(`^Error: Cannot use --signer openssl: ${reason.source}`),
  );
});

Deno.test({
  name: `OpenSSL signatures equal WebCrypto's (RSA PKCS#1 v1.5 is deterministic)${suffix}`,
  ignore,
  async fn() {
    const signer = createOpenSslSigner({ library: DEFAULT_LIBCRYPTO, threads: 2 });
    try {
      const pkcs8 = await pkcs8Key();
      const key = await crypto.subtle.importKey(
        "pkcs8",
        pkcs8 as BufferSource,
        RS256.webcrypto,
        false,
        [
          "sign",
        ],
      );
      const expected = new Uint8Array(await crypto.subtle.sign(RS256.signParams, key, data));
      assert.deepEqual(await signer.bind(pkcs8, RS256)(data), expected);
    } finally {
      await signer.close();
    }
  },
});

Deno.test({
  name: `close() lets signatures in flight finish, then frees the keys and refuses more${suffix}`,
  ignore,
  async fn() {
    const signer = createOpenSslSigner({ threads: 1 });
    const sign = signer.bind(await pkcs8Key(), RS256);
    const inFlight = [sign(data), sign(data)];
    await signer.close();
    for (const signature of await Promise.all(inFlight)) assert.equal(signature.length, 256);
    await assert.rejects(sign(data), /^Error: Cannot sign: the signer is closed$/);
    assert.throws(() => signer.bind(new Uint8Array(8), RS256), /the signer is closed/);
    await signer.close(); // a second close is a no-op, not a double free
  },
});
