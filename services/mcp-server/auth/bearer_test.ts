import assert from "node:assert/strict";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { createBearerVerifier, InvalidToken, notAccessToken } from "./bearer.ts";

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
    opts: { iss?: string; aud?: string; exp?: string; typ?: string } = {},
  ) =>
    new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid: "k1", typ: opts.typ })
      .setIssuedAt()
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

Deno.test("ID tokens are refused whatever their audience: ID-token claims and JWT types", async (t) => {
  const iss = await issuerServer();
  const resource = "https://mcp.example/mcp";
  try {
    // --audience mcp: the opt-in under which an ID token of a client named mcp has a matching aud
    const verifier = createBearerVerifier({ issuer: iss.issuer, audience: "mcp" });
    const accepts = async (token: string) =>
      assert.deepEqual((await verifier.verify(token, { resource })).extra, { subject: "a" });
    const refuses = (token: string) =>
      assert.rejects(verifier.verify(token, { resource }), (e) => {
        assert.ok(e instanceof InvalidToken);
        assert.match(e.message, /^not an access token: /);
        return true;
      });
    const idClaims: Array<[string, Record<string, unknown>]> = [
      ["nonce", { nonce: "n-0S6_WzA2Mj" }],
      ["an empty nonce", { nonce: "" }],
      ["at_hash", { at_hash: "77QmUPtjPfzWtF2AnpK9RQ" }],
      ["c_hash", { c_hash: "LDktKdoQak3Pk0cnXxCltA" }],
      ["s_hash", { s_hash: "x6Bq0tZ0oZ5FGxG4lr8dUw" }],
      ["Keycloak's typ claim ID", { typ: "ID" }],
      ["Keycloak's typ claim id, any case", { typ: "id" }],
    ];
    for (const [what, claims] of idClaims) {
      await t.step(`refused: ${what}`, async () => {
        await refuses(await iss.sign({ sub: "a", scope: "mcp", ...claims }));
        await refuses(await iss.sign({ sub: "a", scope: "mcp", ...claims }, { aud: resource }));
        await refuses(await iss.sign({ sub: "a", ...claims }, { aud: resource, typ: "at+jwt" }));
      });
    }
    for (
      const typ of [
        undefined,
        "JWT",
        "jwt",
        "application/jwt",
        "at+jwt",
        "AT+JWT",
        "application/at+jwt",
      ]
    ) {
      await t.step(`accepted: header typ ${JSON.stringify(typ)}`, async () => {
        await accepts(await iss.sign({ sub: "a" }, { typ }));
        await accepts(await iss.sign({ sub: "a" }, { typ, aud: resource }));
      });
    }
    await t.step("accepted: Keycloak's typ claim Bearer, Entra-like typ JWT with azp", async () => {
      await accepts(await iss.sign({ sub: "a", typ: "Bearer", azp: "web" }, { typ: "JWT" }));
      await accepts(await iss.sign({ sub: "a", typ: "bearer" }, { typ: "JWT", aud: resource }));
      await accepts(await iss.sign({ sub: "a", azp: "web", ver: "2.0" }, { typ: "JWT" }));
    });
    const otherTypes = [
      "id_token+jwt",
      "logout+jwt",
      "secevent+jwt",
      "dpop+jwt",
      "application/logout+jwt",
      "JOSE",
      "at+jwt; x=y",
      "jwt ",
      "jwtx",
      "",
    ];
    for (const typ of otherTypes) {
      await t.step(`refused: header typ ${JSON.stringify(typ)}`, async () => {
        await refuses(await iss.sign({ sub: "a" }, { typ }));
        await refuses(await iss.sign({ sub: "a" }, { typ, aud: resource }));
      });
    }
  } finally {
    await iss.close();
  }
});

Deno.test("without an audience option only the resource URI is an accepted aud", async () => {
  const iss = await issuerServer();
  try {
    const verifier = createBearerVerifier({ issuer: iss.issuer });
    const resource = "https://mcp.example/mcp";
    const info = await verifier.verify(await iss.sign({ sub: "a" }, { aud: resource }), {
      resource,
    });
    assert.deepEqual(info.extra, { subject: "a" });
    await assert.rejects(verifier.verify(await iss.sign({ sub: "a" }), { resource }), InvalidToken);
    await assert.rejects(
      verifier.verify(await iss.sign({ sub: "a" }, { aud: resource })),
      InvalidToken,
    );
  } finally {
    await iss.close();
  }
});

Deno.test("notAccessToken names what makes a JWT another kind of token", () => {
  const access = { sub: "a", scope: "mcp" };
  assert.equal(notAccessToken({}, access), undefined);
  assert.equal(notAccessToken({ typ: "JWT" }, { ...access, typ: "Bearer" }), undefined);
  assert.equal(notAccessToken({ typ: "application/AT+JWT" }, access), undefined);
  assert.equal(notAccessToken({ typ: 5 }, access), "typ 5");
  assert.equal(notAccessToken({ typ: null }, access), "typ null");
  assert.equal(notAccessToken({ typ: "logout+jwt" }, access), 'typ "logout+jwt"');
  assert.equal(notAccessToken({ typ: "JWT" }, { ...access, nonce: null }), "nonce claim");
  assert.equal(notAccessToken({}, { ...access, at_hash: "h", nonce: "n" }), "nonce claim");
  assert.equal(notAccessToken({}, { ...access, c_hash: "h" }), "c_hash claim");
  assert.equal(notAccessToken({}, { ...access, typ: "ID" }), "typ claim ID");
  // a claim named like one only by prototype is not one
  assert.equal(notAccessToken({}, Object.create({ nonce: "n" })), undefined);
});
