import assert from "node:assert/strict";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { inspectTokens } from "./inspect.ts";

Deno.test("inspectTokens decodes each token and verifies it against the JWKS", async (t) => {
  const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
  const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: "k", alg: "ES256" }] };
  const sign = (claims: Record<string, unknown>, kid = "k") =>
    new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid }).sign(privateKey);
  const good = await sign({ sub: "alice" });

  await t.step("a good JWT: header, claims, verified", async () => {
    const [report] = await inspectTokens({ id_token: good }, jwks);
    assert.equal(report.field, "id_token");
    assert.deepEqual(report.header, { alg: "ES256", kid: "k" });
    assert.equal(report.claims?.sub, "alice");
    assert.deepEqual(report.signature, { verified: true });
  });
  await t.step("an altered payload fails verification with jose's code", async () => {
    const [h, , s] = good.split(".");
    const forged = [h, btoa('{"sub":"mallory"}').replace(/=+$/, ""), s].join(".");
    const [report] = await inspectTokens({ access_token: forged }, jwks);
    assert.equal(report.claims?.sub, "mallory");
    assert.equal(report.signature?.verified, false);
    assert.match(JSON.stringify(report.signature), /ERR_JWS_SIGNATURE_VERIFICATION_FAILED/);
  });
  await t.step("an unknown kid and alg=none fail", async () => {
    const other = await sign({ sub: "x" }, "nope");
    const none = `${btoa('{"alg":"none"}').replace(/=+$/, "")}.${btoa("{}")}.`;
    const reports = await inspectTokens({ id_token: other, access_token: none }, jwks);
    assert.deepEqual(reports.map((r) => r.signature?.verified), [false, false]);
  });
  await t.step("opaque, undecodable and non-string values; display order", async () => {
    const reports = await inspectTokens({
      refresh_token: "opaque",
      access_token: "a.b.c",
      id_token: 42,
      token_type: good,
    }, jwks);
    assert.deepEqual(reports.map((r) => [r.field, r.note?.split(":")[0]]), [
      ["access_token", "not a decodable JWT"],
      ["refresh_token", "opaque token (not a JWT)"],
    ]);
    assert.equal(reports[0].signature, undefined);
  });
});
