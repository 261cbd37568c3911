import assert from "node:assert/strict";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { concurrentSteps } from "@svc/testing";
import { ALGORITHMS, startOidc } from "./_test_support.ts";

// One service per algorithm (the setting is global); the services start side by side.
Deno.test("jose verifies tokens of every algorithm against the remote JWKS", async (t) => {
  await concurrentSteps(t, ALGORITHMS, {
    concurrency: 4,
    name: (alg) => `jose verifies ${alg} tokens against the remote JWKS`,
  }, async (alg) => {
    const service = await startOidc({ tokenProvider: { keyProvider: { algorithm: alg } } });
    try {
      const issuer = `${service.url}/jose`;
      const res = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: "c",
          scope: "api",
        }),
      });
      assert.equal(res.status, 200);
      const { access_token: token } = await res.json();
      const jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
      const { payload, protectedHeader } = await jwtVerify(token, jwks, {
        issuer,
        audience: "api",
        algorithms: [alg],
      });
      assert.equal(protectedHeader.kid, "jose");
      assert.equal(payload.sub, "c");
    } finally {
      await service.stop();
    }
  });
});
