import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { withOidc } from "./_test_support.ts";

const AT_JWT = {
  tokenCallbacks: [{
    issuerId: "rs",
    requestMappings: [{ requestParam: "client_id", match: "*", typeHeader: "at+jwt" }],
  }],
};

Deno.test("oauth4webapi: RFC 8414 discovery and validateJwtAccessToken on an at+jwt token", async () => {
  await withOidc(AT_JWT, async ({ url }) => {
    const issuer = new URL(`${url}/rs`);
    const options = { [oauth.allowInsecureRequests]: true };
    const response = await oauth.discoveryRequest(issuer, { ...options, algorithm: "oauth2" });
    const as = await oauth.processDiscoveryResponse(issuer, response);
    assert.equal(as.issuer, issuer.href);
    const client: oauth.Client = { "client_id": "api-client" };
    const tokenResponse = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      oauth.ClientSecretPost("secret"),
      new URLSearchParams({ scope: "resource" }),
      options,
    );
    const tokens = await oauth.processClientCredentialsResponse(as, client, tokenResponse);
    const request = new Request("http://rs.test/api", {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    const claims = await oauth.validateJwtAccessToken(as, request, "resource", options);
    assert.equal(claims.client_id, "api-client");
    assert.equal(claims.sub, "api-client");
    // and the server's own endpoints accept it (upstream rejected at+jwt)
    const userinfo = await fetch(`${url}/rs/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    assert.equal(userinfo.status, 200);
    assert.equal((await userinfo.json()).client_id, "api-client");
  });
});

Deno.test("oauth4webapi: userinfo 401 carries a WWW-Authenticate challenge", async () => {
  await withOidc({}, async ({ url }) => {
    const issuer = new URL(`${url}/default`);
    const options = { [oauth.allowInsecureRequests]: true };
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, options),
    );
    const response = await oauth.userInfoRequest(as, { client_id: "c" }, "not-a-token", options);
    await assert.rejects(
      oauth.processUserInfoResponse(as, { client_id: "c" }, oauth.skipSubjectCheck, response),
      (err: oauth.WWWAuthenticateChallengeError) => {
        assert.equal(err.cause[0].scheme, "bearer");
        assert.equal(err.cause[0].parameters.error, "invalid_token");
        return true;
      },
    );
  });
});
