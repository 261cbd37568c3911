import assert from "node:assert/strict";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { openSslUnavailable } from "../../services/mock-oidc/keys/openssl.ts";
import { MAIN, PERMISSIONS, postForm, startMock } from "./_test_support.ts";
import { skipSuite } from "@svc/testing";

const CLIENT = "grant_type=client_credentials&client_id=svc&client_secret=s";

/** Issues `count` tokens at once and verifies each with jose against the served JWKS. */
async function issueAndVerify(url: string, count: number) {
  const jwks = createRemoteJWKSet(new URL(`${url}/default/jwks`));
  const responses = await Promise.all(
    Array.from({ length: count }, () => postForm(`${url}/default/token`, CLIENT)),
  );
  for (const res of responses) {
    assert.equal(res.status, 200);
    const { payload } = await jwtVerify(res.body.access_token, jwks, {
      issuer: `${url}/default`,
    });
    assert.equal(payload.sub, "svc");
  }
}

function readyLine(output: string): Record<string, unknown> {
  const line = output.split("\n").find((l) => l.includes('"mock-oidc ready"'));
  assert.ok(line, output);
  return JSON.parse(line);
}

Deno.test({
  name: "the default signer is the WebCrypto pool, inside the deployed sandbox (no --allow-ffi)",
  sanitizeResources: false,
  async fn() {
    assert.equal(PERMISSIONS.some((p) => p.startsWith("--allow-ffi")), false);
    const mock = await startMock({ args: ["--signer-threads", "2"] });
    try {
      await issueAndVerify(mock.url, 8);
      const ready = readyLine(mock.output());
      assert.equal(ready.signer, "webcrypto");
      assert.equal(ready.signerThreads, 2);
    } finally {
      assert.equal(await mock.stop(), 0, mock.output()); // the workers do not hold the exit
    }
  },
});

Deno.test("--signer openssl without --allow-ffi stops startup naming the setting", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMISSIONS, MAIN, "--addr", "127.0.0.1:0", "--signer", "openssl"],
    env: { JSON_CONFIG: "{}" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr).split("\n")
    .filter((line) => line.startsWith("mock-oidc:"));
  assert.equal(out.code, 2);
  assert.deepEqual(stderr, [
    "mock-oidc: Invalid configuration: --signer: Cannot use --signer openssl: it needs --allow-ffi",
  ]);
});

Deno.test("signing workers that cannot load their module stop startup naming --signer", async () => {
  // The deployed set grants all reads; a narrower one must still cover the worker's module.
  const permissions = PERMISSIONS.map((p) =>
    p === "--allow-read" ? "--allow-read=/nonexistent" : p
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...permissions, MAIN, "--addr", "127.0.0.1:0", "--metrics-addr="],
    env: { JSON_CONFIG: "{}" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr).split("\n")
    .filter((line) => line.startsWith("mock-oidc:"));
  assert.equal(out.code, 2);
  assert.equal(stderr.length, 1, stderr.join("\n"));
  assert.match(
    stderr[0],
    /^mock-oidc: Invalid configuration: --signer: Cannot sign: a signing worker failed: .*sign_worker\.ts/,
  );
});

const missing = openSslUnavailable();
Deno.test({
  name: "--signer openssl with --allow-ffi signs tokens that verify" +
    (missing ? ` (ignored: ${missing})` : ""),
  ignore: skipSuite({
    module: import.meta.url,
    part: "--signer openssl",
    needs: missing && `OpenSSL's libcrypto through FFI (${missing})`,
  }),
  sanitizeResources: false,
  async fn() {
    const mock = await startMock({
      args: ["--signer", "openssl"],
      env: { MOCK_OIDC_SIGNER_LIBCRYPTO: "libcrypto.so.3" },
      extraPermissions: ["--allow-ffi"],
    });
    try {
      await issueAndVerify(mock.url, 8);
      assert.equal(readyLine(mock.output()).signer, "openssl");
    } finally {
      assert.equal(await mock.stop(), 0, mock.output());
    }
  },
});
