import assert from "node:assert/strict";
import { MockOidc } from "@svc/mock-oidc";

Deno.test("a token minted for alice is hers at userinfo", async () => {
  await using oidc = await MockOidc.start();
  const { token } = await oidc.mint({ issuer: "default", subject: "alice" });
  const res = await fetch(`${oidc.issuerUrl("default")}/userinfo`, {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal((await res.json()).sub, "alice");
  const seen = await oidc.takeRequest({ endpoint: "userinfo" });
  assert.deepEqual(seen?.headers?.authorization, [`Bearer ${token}`]);
});
