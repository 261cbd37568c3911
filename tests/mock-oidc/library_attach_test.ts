/**
 * `MockOidc.attach` against the shipped service (its permission flags, a control token, `/_mock`
 * on its own listener): the same handle drives a process it did not start, and disposing it leaves
 * that process running.
 */
import assert from "node:assert/strict";
import { MockOidc } from "@svc/mock-oidc";
import { startMock } from "./_test_support.ts";

Deno.test("attach: take a captured request from a running mock-oidc", async () => {
  const service = await startMock();
  try {
    const oidc = MockOidc.attach(service.url);
    await oidc.injectFault({ endpoint: "jwks", kind: "malformed", malformed: "jwks_without_keys" });
    const res = await fetch(`${oidc.issuerUrl("t")}/jwks`);
    assert.deepEqual(await res.json(), { keys: [] });
    const taken = await oidc.takeRequest({ endpoint: "jwks", issuer: "t" });
    assert.equal(taken?.path, "/t/jwks");
    assert.equal(taken?.fault, res.headers.get("x-mock-oidc-fault"));
  } finally {
    assert.equal(await service.stop(), 0);
  }
});

Deno.test("attach: a running mock-oidc with a control token and a control listener", async () => {
  const service = await startMock({
    args: ["--control-token", "t0ken", "--control-addr", "127.0.0.1:0"],
    listeners: ["api", "metrics", "control"],
  });
  try {
    {
      await using oidc = MockOidc.attach(service.url, {
        controlToken: "t0ken",
        controlUrl: service.urls.control,
      });
      assert.equal(oidc.issuerUrl("t"), `${service.url}/t`);
      await oidc.setClock(new Date("2031-05-01T00:00:00Z"));
      const minted = await oidc.mint({ issuer: "t", subject: "carol" });
      assert.equal(minted.issuer, `${service.url}/t`);
      assert.equal(minted.claims.iat, Date.parse("2031-05-01T00:00:00Z") / 1000);
      await oidc.injectFault({ endpoint: "jwks", kind: "http", status: 502, body: "down" });
      const down = await fetch(`${oidc.issuerUrl("t")}/jwks`);
      assert.deepEqual([down.status, await down.text()], [502, "down"]);
      const { active } = await oidc.rotateKey("t", { algorithm: "PS256" });
      assert.equal((await oidc.mint({ issuer: "t" })).kid, active.kid);
      // with a dedicated control listener nothing is captured (docs/mock-oidc.md)
      assert.equal(await oidc.takeRequest({ endpoint: "jwks", timeoutMs: 10 }), undefined);
      await oidc.reset();
      assert.equal((await oidc.clock()).frozen, false);
      // /_mock is not on the API listener here
      await assert.rejects(MockOidc.attach(service.url, { controlToken: "t0ken" }).clock(), {
        status: 404,
        message:
          "GET /_mock/clock answered 404: Cannot find /_mock/clock: the control plane is served on its own listener",
      });
    }
    // disposing an attached handle leaves the process serving
    const res = await fetch(`${service.url}/t/jwks`);
    assert.equal(res.status, 200);
    await res.body?.cancel();
  } finally {
    assert.equal(await service.stop(), 0);
  }
});
