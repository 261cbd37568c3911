import assert from "node:assert/strict";
import { BASE, harness } from "./_test_support.ts";

const ISSUER = `${BASE}/mcp`;

function assertEndpoint(doc: Record<string, unknown>, member: string) {
  const value = doc[member];
  assert.equal(typeof value, "string", `${member} is a string`);
  const url = new URL(value as string);
  assert.equal(url.hash, "", `${member} has no fragment`);
  assert.ok((value as string).startsWith(`${ISSUER}/`), `${member} lives under the issuer`);
}

Deno.test("authorization-server metadata carries what RFC 8414, OIDC Discovery and MCP need", async () => {
  const h = harness();
  const docs = await Promise.all(
    [
      "/mcp/.well-known/openid-configuration",
      "/mcp/.well-known/oauth-authorization-server",
      "/.well-known/oauth-authorization-server/mcp",
    ].map(async (path) => await (await h.call(path)).json()),
  );
  assert.deepEqual(docs[1], docs[0]);
  assert.deepEqual(docs[2], docs[0]);
  const doc = docs[0];
  // RFC 8414 §2 REQUIRED: issuer (no query or fragment), response_types_supported; the
  // authorization and token endpoints (required with the code grant).
  assert.equal(doc.issuer, ISSUER);
  assert.equal(new URL(doc.issuer).search + new URL(doc.issuer).hash, "");
  assert.ok(doc.response_types_supported.includes("code"));
  for (const member of ["authorization_endpoint", "token_endpoint", "jwks_uri"]) {
    assertEndpoint(doc, member);
  }
  // OpenID Connect Discovery 1.0 §3 REQUIRED.
  assert.deepEqual(doc.subject_types_supported, ["public"]);
  assert.ok(doc.id_token_signing_alg_values_supported.includes("RS256"));
  // RFC 7591 §3 / RFC 8414 §2: where clients register; the MCP client's discovery of both ways.
  assertEndpoint(doc, "registration_endpoint");
  assert.equal(doc.registration_endpoint, `${ISSUER}/register`);
  assert.equal(doc.client_id_metadata_document_supported, true);
  // MCP authorization: clients refuse a server that does not advertise S256.
  assert.ok(doc.code_challenge_methods_supported.includes("S256"));
  assert.ok(doc.grant_types_supported.includes("authorization_code"));
  assert.ok(doc.grant_types_supported.includes("refresh_token"));
  assert.ok(doc.token_endpoint_auth_methods_supported.includes("none"));
});

Deno.test("RFC 7591 §3.2.1 client information: required members and their types", async () => {
  const h = harness();
  for (const method of ["none", "client_secret_basic", "client_secret_post", "private_key_jwt"]) {
    const res = await h.call("/mcp/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        redirect_uris: ["https://c.example/cb"],
        token_endpoint_auth_method: method,
        ...(method === "private_key_jwt" ? { jwks_uri: "https://c.example/jwks" } : {}),
      }),
    });
    assert.equal(res.status, 201);
    const info = await res.json();
    assert.equal(typeof info.client_id, "string"); // REQUIRED
    assert.ok(Number.isInteger(info.client_id_issued_at)); // OPTIONAL, seconds
    const secret = method.startsWith("client_secret_");
    assert.equal(typeof info.client_secret, secret ? "string" : "undefined", method);
    // REQUIRED when a secret is issued; 0 = never expires
    assert.equal(info.client_secret_expires_at, secret ? 0 : undefined, method);
    // RFC 7592 §3: both or neither
    assert.equal(typeof info.registration_access_token, "string");
    assert.equal(info.registration_client_uri, `${ISSUER}/register/${info.client_id}`);
    // every registered metadata value is returned
    assert.deepEqual(info.redirect_uris, ["https://c.example/cb"]);
    assert.equal(info.token_endpoint_auth_method, method);
  }
});
