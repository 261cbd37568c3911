import assert from "node:assert/strict";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { createBearerVerifier, InvalidToken } from "./bearer.ts";

async function issuerServer() {
  const { publicKey, privateKey } = await generateKeyPair("ES256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256", use: "sig" };
  let requests = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    requests++;
    const url = new URL(req.url);
    if (url.pathname === "/iss/.well-known/openid-configuration") {
      return Response.json({ issuer: `${url.origin}/iss`, jwks_uri: `${url.origin}/iss/jwks` });
    }
    if (url.pathname === "/iss/jwks") return Response.json({ keys: [jwk] });
    return new Response("no", { status: 404 });
  });
  const issuer = `http://127.0.0.1:${server.addr.port}/iss`;
  const sign = (
    claims: Record<string, unknown>,
    opts: { iss?: string; aud?: string; exp?: string } = {},
  ) =>
    new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid: "k1" }).setIssuedAt()
      .setIssuer(opts.iss ?? issuer).setAudience(opts.aud ?? "mcp")
      .setExpirationTime(opts.exp ?? "5m").sign(privateKey);
  return { issuer, sign, requests: () => requests, close: () => server.shutdown() };
}

Deno.test("createBearerVerifier accepts tokens of the issuer's JWKS for the audience", async (t) => {
  const iss = await issuerServer();
  try {
    const verifier = createBearerVerifier({ issuer: iss.issuer, audience: "mcp" });
    await t.step("valid token: subject, client and scopes", async () => {
      const info = await verifier.verify(
        await iss.sign({ sub: "alice", scope: "a b", client_id: "c1" }),
      );
      assert.deepEqual(info.extra, { subject: "alice" });
      assert.equal(info.clientId, "c1");
      assert.deepEqual(info.scopes, ["a", "b"]);
    });
    const rejected: Array<[string, () => Promise<string>]> = [
      ["wrong audience", () => iss.sign({ sub: "a" }, { aud: "other" })],
      ["wrong issuer", () => iss.sign({ sub: "a" }, { iss: "http://elsewhere" })],
      ["expired", () => iss.sign({ sub: "a" }, { exp: "-1m" })],
      ["no subject", () => iss.sign({})],
      ["tampered", async () => (await iss.sign({ sub: "a" })).slice(0, -4) + "AAAA"],
    ];
    for (const [what, make] of rejected) {
      await t.step(what, async () => {
        await assert.rejects(verifier.verify(await make()), InvalidToken);
      });
    }
  } finally {
    await iss.close();
  }
});

Deno.test("malformed tokens are refused without contacting the issuer", async () => {
  const iss = await issuerServer();
  try {
    const verifier = createBearerVerifier({ issuer: iss.issuer, audience: "mcp" });
    for (const token of ["abc", "a.b.c", "", "x".repeat(5000)]) {
      await assert.rejects(verifier.verify(token), InvalidToken);
    }
    assert.equal(iss.requests(), 0);
  } finally {
    await iss.close();
  }
});

Deno.test("an unreachable issuer is not an invalid token, and discovery is retried", async () => {
  const iss = await issuerServer();
  const token = await iss.sign({ sub: "a" });
  await iss.close();
  const verifier = createBearerVerifier({ issuer: iss.issuer, audience: "mcp", timeoutMs: 2000 });
  for (let i = 0; i < 2; i++) {
    await assert.rejects(verifier.verify(token), (e) => !(e instanceof InvalidToken));
  }
});
