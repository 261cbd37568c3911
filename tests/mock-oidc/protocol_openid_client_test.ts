import assert from "node:assert/strict";
import * as client from "openid-client";
import { concurrentSteps, type ServiceProcess } from "@svc/testing";
import { control, startOidc, withOidc } from "./_test_support.ts";

const REDIRECT = "http://127.0.0.1:1/callback";
/** The issuer whose DPoP proofs need a server nonce (--dpop-nonce-issuers). */
const NONCE_ISSUER = "dpop-nonce";
/** The issuer of the FAPI-shaped case: nonces too, its own request log. */
const FAPI_ISSUER = "fapi";

async function discover(base: string, issuer = "default", secret = "secret") {
  return await client.discovery(
    new URL(`${base}/${issuer}`),
    "app",
    secret,
    client.ClientSecretBasic(secret),
    { execute: [client.allowInsecureRequests] },
  );
}

/** The message of what openid-client's authorization-response check refused (its cause). */
function issProblem(err: Error): string | undefined {
  return (err as Error & { code?: string }).code === "OAUTH_INVALID_RESPONSE"
    ? (err.cause as Error | undefined)?.message
    : undefined;
}

/** Follow the authorization URL like a browser would, returning the callback URL. */
async function authorize(url: URL): Promise<URL> {
  const res = await fetch(url, { redirect: "manual" });
  await res.body?.cancel();
  assert.equal(res.status, 302);
  return new URL(res.headers.get("location")!);
}

/** The service of the cases that need no configuration of their own (started by the test). */
let shared: ServiceProcess | undefined;
function withShared(fn: (service: ServiceProcess) => Promise<void>): Promise<void> {
  return fn(shared!);
}

/**
 * The cases: each uses its own clients, codes and tokens, so those on the default configuration
 * share one service and all run side by side.
 */
const CASES: [string, () => Promise<void>][] = [
  [
    "openid-client: discovery, code flow with PKCE and nonce, userinfo, refresh",
    async () => {
      await withShared(async ({ url }) => {
        const config = await discover(url);
        assert.equal(config.serverMetadata().issuer, `${url}/default`);
        const verifier = client.randomPKCECodeVerifier();
        const nonce = client.randomNonce();
        const state = client.randomState();
        const callback = await authorize(client.buildAuthorizationUrl(config, {
          redirect_uri: REDIRECT,
          scope: "openid profile api",
          code_challenge: await client.calculatePKCECodeChallenge(verifier),
          code_challenge_method: "S256",
          nonce,
          state,
          max_age: "300",
        }));
        const tokens = await client.authorizationCodeGrant(config, callback, {
          pkceCodeVerifier: verifier,
          expectedNonce: nonce,
          expectedState: state,
          maxAge: 300,
        });
        const claims = tokens.claims()!;
        assert.equal(claims.nonce, nonce);
        assert.equal(claims.aud, "app");
        const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
        assert.equal(info.sub, claims.sub);
        const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
        assert.equal(refreshed.claims()!.sub, claims.sub);
        assert.equal(refreshed.refresh_token, tokens.refresh_token);
      });
    },
  ],
  [
    "openid-client: RFC 9207 iss is checked; a response from another issuer is refused (mix-up)",
    async () => {
      await withShared(async ({ url }) => {
        const config = await discover(url, "rp-a");
        assert.equal(config.serverMetadata().authorization_response_iss_parameter_supported, true);
        const state = client.randomState();
        const params = { "redirect_uri": REDIRECT, scope: "openid", state };
        // The same request sent to another issuer of the same mock: its code must not be taken.
        const other = await discover(url, "rp-b");
        const mixedUp = await authorize(client.buildAuthorizationUrl(other, params));
        assert.equal(mixedUp.searchParams.get("iss"), `${url}/rp-b`);
        await assert.rejects(
          client.authorizationCodeGrant(config, mixedUp, { expectedState: state }),
          (err: Error) => issProblem(err) === 'unexpected "iss" (issuer) response parameter value',
        );
        // Without iss the advertised check fails too: the client does look at it.
        const stripped = await authorize(client.buildAuthorizationUrl(config, params));
        stripped.searchParams.delete("iss");
        await assert.rejects(
          client.authorizationCodeGrant(config, stripped, { expectedState: state }),
          (err: Error) => issProblem(err) === 'response parameter "iss" (issuer) missing',
        );
        // The real answer of its own issuer completes the flow with iss checked.
        const callback = await authorize(client.buildAuthorizationUrl(config, params));
        assert.equal(callback.searchParams.get("iss"), `${url}/rp-a`);
        const tokens = await client.authorizationCodeGrant(config, callback, {
          expectedState: state,
        });
        assert.equal(tokens.claims()!.iss, `${url}/rp-a`);
        // An error response is checked the same way: its own issuer's error surfaces as such.
        const denied = await authorize(
          client.buildAuthorizationUrl(config, { ...params, prompt: "none login" }),
        );
        assert.equal(denied.searchParams.get("iss"), `${url}/rp-a`);
        await assert.rejects(
          client.authorizationCodeGrant(config, denied, { expectedState: state }),
          (err: client.AuthorizationResponseError) => err.error === "login_required",
        );
      });
    },
  ],
  [
    "openid-client: multi-segment issuers (Keycloak- and Entra-style) and a trailing-slash one",
    async () => {
      await withShared(async ({ url }) => {
        const flow = async (issuerUrl: string) => {
          const config = await client.discovery(
            new URL(issuerUrl),
            "app",
            "secret",
            client.ClientSecretBasic("secret"),
            { execute: [client.allowInsecureRequests] },
          );
          assert.equal(config.serverMetadata().issuer, issuerUrl);
          const state = client.randomState();
          const callback = await authorize(client.buildAuthorizationUrl(config, {
            "redirect_uri": REDIRECT,
            scope: "openid",
            state,
          }));
          assert.equal(callback.searchParams.get("iss"), issuerUrl);
          const tokens = await client.authorizationCodeGrant(config, callback, {
            expectedState: state,
          });
          assert.equal(tokens.claims()!.iss, issuerUrl);
          const info = await client.fetchUserInfo(
            config,
            tokens.access_token,
            tokens.claims()!.sub,
          );
          assert.equal(info.sub, tokens.claims()!.sub);
        };
        await flow(`${url}/realms/x`);
        await flow(`${url}/tenant1/v2.0`);
        // The trailing slash, set for one issuer through the control plane.
        const put = await control(url, "PUT", "/_mock/issuers", {
          issuer: "realms/slash",
          trailingSlash: true,
          discovery: { "tenant_region_scope": "EU" },
        });
        assert.equal(put.status, 200);
        await flow(`${url}/realms/slash/`);
        const doc = await (await fetch(`${url}/realms/slash/.well-known/openid-configuration`))
          .json();
        assert.equal(doc.tenant_region_scope, "EU");
      });
    },
  ],
  [
    "shipped: --public-base-url and the JSON configuration's issuers",
    async () => {
      const service = await startOidc({
        issuers: [{ issuer: "tenant1/v2.0", trailingSlash: true, discovery: { x: 1 } }],
      }, { args: ["--public-base-url", "https://idp.example/auth/"] });
      try {
        const res = await fetch(`${service.url}/tenant1/v2.0/.well-known/openid-configuration`, {
          headers: { "x-forwarded-host": "other.example" },
        });
        const doc = await res.json();
        assert.equal(doc.issuer, "https://idp.example/auth/tenant1/v2.0/");
        assert.equal(doc.token_endpoint, "https://idp.example/auth/tenant1/v2.0/token");
        assert.equal(doc.x, 1);
        const listed = await control(service.url, "GET", "/_mock/issuers");
        assert.deepEqual(listed.body.issuers, [
          { issuer: "tenant1/v2.0", source: "config", trailingSlash: true, discovery: { x: 1 } },
        ]);
      } finally {
        await service.stop();
      }
    },
  ],
  [
    "openid-client: a replayed code is rejected with invalid_grant",
    async () => {
      await withShared(async ({ url }) => {
        const config = await discover(url);
        const callback = await authorize(client.buildAuthorizationUrl(config, {
          redirect_uri: REDIRECT,
          scope: "openid",
        }));
        await client.authorizationCodeGrant(config, callback, {
          expectedState: client.skipStateCheck,
        });
        await assert.rejects(
          client.authorizationCodeGrant(config, callback, { expectedState: client.skipStateCheck }),
          (err: client.ResponseBodyError) => err.error === "invalid_grant",
        );
      });
    },
  ],
  [
    "openid-client: client credentials, introspection, revocation",
    async () => {
      await withShared(async ({ url }) => {
        const config = await discover(url);
        const tokens = await client.clientCredentialsGrant(config, { scope: "api" });
        const active = await client.tokenIntrospection(config, tokens.access_token);
        assert.equal(active.active, true);
        assert.equal(active.sub, "app");
        assert.equal(active.aud, "api");
        await client.tokenRevocation(config, tokens.access_token);
        const revoked = await client.tokenIntrospection(config, tokens.access_token);
        assert.equal(revoked.active, false);
        await client.tokenRevocation(config, "never-issued");
      });
    },
  ],
  [
    "openid-client: end session redirects to post_logout_redirect_uri with state",
    async () => {
      await withShared(async ({ url }) => {
        const config = await discover(url);
        const endUrl = client.buildEndSessionUrl(config, {
          post_logout_redirect_uri: "http://127.0.0.1:1/bye?x=1",
          state: "s1",
        });
        const res = await fetch(endUrl, { redirect: "manual" });
        await res.body?.cancel();
        assert.equal(res.status, 302);
        assert.equal(res.headers.get("location"), "http://127.0.0.1:1/bye?x=1&state=s1");
      });
    },
  ],
  [
    "openid-client: device authorization flow",
    async () => {
      await withShared(async ({ url }) => {
        const config = await discover(url, "devices");
        const device = await client.initiateDeviceAuthorization(config, { scope: "openid api" });
        assert.match(device.user_code, /^[A-Z]{4}-[A-Z]{4}$/);
        const tokens = await client.pollDeviceAuthorizationGrant(config, device);
        assert.equal(tokens.claims()!.aud, "app");
        assert.ok(tokens.access_token);
      });
    },
  ],
  [
    "openid-client: interactive device flow approved through the page",
    async () => {
      await withOidc({ interactiveLogin: true }, async ({ url }) => {
        const config = await discover(url);
        const device = await client.initiateDeviceAuthorization(config, { scope: "openid" });
        const polling = client.pollDeviceAuthorizationGrant(config, device);
        const approve = await fetch(device.verification_uri, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ user_code: device.user_code, username: "tv-user" }),
        });
        assert.equal(approve.status, 200);
        await approve.body?.cancel();
        const tokens = await polling;
        assert.equal(tokens.claims()!.sub, "tv-user");
      });
    },
  ],
  [
    "openid-client: private_key_jwt client authentication",
    async () => {
      await withShared(async ({ url }) => {
        const { privateKey } = await crypto.subtle.generateKey(
          { name: "ECDSA", namedCurve: "P-256" },
          false,
          ["sign", "verify"],
        );
        const config = await client.discovery(
          new URL(`${url}/default`),
          "pkjwt-client",
          undefined,
          client.PrivateKeyJwt(privateKey),
          { execute: [client.allowInsecureRequests] },
        );
        const tokens = await client.clientCredentialsGrant(config, { scope: "api" });
        const introspected = await client.tokenIntrospection(config, tokens.access_token);
        assert.equal(introspected.sub, "pkjwt-client");
      });
    },
  ],
  [
    "openid-client: private_key_jwt of a registered client is verified (RFC 7523)",
    async () => {
      await withShared(async ({ url }) => {
        const keys = () =>
          crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
            "sign",
            "verify",
          ]) as Promise<CryptoKeyPair>;
        const { privateKey, publicKey } = await keys();
        const jwk = { ...await crypto.subtle.exportKey("jwk", publicKey), kid: "app-key" };
        const registered = await fetch(`${url}/default/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            grant_types: ["client_credentials"],
            token_endpoint_auth_method: "private_key_jwt",
            jwks: { keys: [jwk] },
          }),
        });
        assert.equal(registered.status, 201);
        const { client_id } = await registered.json();
        const connect = (key: CryptoKey) =>
          client.discovery(
            new URL(`${url}/default`),
            client_id,
            undefined,
            client.PrivateKeyJwt({ key, kid: "app-key" }),
            { execute: [client.allowInsecureRequests] },
          );
        const tokens = await client.clientCredentialsGrant(await connect(privateKey), {
          scope: "api",
        });
        const introspected = await client.tokenIntrospection(
          await connect(privateKey),
          tokens.access_token,
        );
        assert.equal(introspected.sub, client_id);
        // the same client with a key it did not register is refused
        const stranger = await connect((await keys()).privateKey);
        // a 401 with a challenge: the client hands back the response
        const err = await client.clientCredentialsGrant(stranger, { scope: "api" }).then(
          () => assert.fail("a key the client did not register was accepted"),
          (e: client.WWWAuthenticateChallengeError) => e,
        );
        assert.equal(err.status, 401);
        assert.deepEqual(await err.response.json(), {
          error: "invalid_client",
          error_description: "client_assertion signature does not verify",
        });
      });
    },
  ],
  [
    "openid-client: DPoP-bound client_credentials, introspected and refused as Bearer",
    async () => {
      await withShared(async ({ url }) => {
        const config = await discover(url);
        const keyPair = await client.randomDPoPKeyPair("ES256");
        const DPoP = client.getDPoPHandle(config, keyPair);
        const tokens = await client.clientCredentialsGrant(config, { scope: "api" }, { DPoP });
        assert.equal(tokens.token_type, "dpop");
        const info = await client.tokenIntrospection(config, tokens.access_token);
        assert.equal(info.token_type, "DPoP");
        assert.equal(typeof (info.cnf as { jkt?: unknown }).jkt, "string");
        const asBearer = await fetch(`${url}/default/userinfo`, {
          headers: { authorization: `Bearer ${tokens.access_token}` },
        });
        await asBearer.body?.cancel();
        assert.equal(asBearer.status, 401);
        assert.match(asBearer.headers.get("www-authenticate")!, /^DPoP error="invalid_token"/);
      });
    },
  ],
  [
    "openid-client: code flow with DPoP, a nonce challenge on the first request, userinfo, refresh",
    async () => {
      await withShared(async ({ url }) => {
        // --dpop-nonce-issuers names this issuer: every proof needs the server's nonce
        const config = await client.discovery(
          new URL(`${url}/${NONCE_ISSUER}`),
          "dpop-spa",
          undefined,
          client.None(),
          { execute: [client.allowInsecureRequests] },
        );
        assert.ok(config.serverMetadata().dpop_signing_alg_values_supported?.includes("ES256"));
        const DPoP = client.getDPoPHandle(config, await client.randomDPoPKeyPair("ES256"));
        const verifier = client.randomPKCECodeVerifier();
        const callback = await authorize(client.buildAuthorizationUrl(config, {
          redirect_uri: REDIRECT,
          scope: "openid api",
          code_challenge: await client.calculatePKCECodeChallenge(verifier),
          code_challenge_method: "S256",
        }));
        // the first token request has no nonce: use_dpop_nonce, and the client retries with it
        const tokens = await client.authorizationCodeGrant(
          config,
          callback,
          {
            pkceCodeVerifier: verifier,
          },
          undefined,
          { DPoP },
        );
        assert.equal(tokens.token_type, "dpop");
        const log = await (await fetch(
          `${url}/_mock/requests?issuer=${NONCE_ISSUER}&endpoint=token`,
        )).json();
        assert.equal(log.count, 2, "the challenged request and its retry with the nonce");
        const sub = tokens.claims()!.sub;
        const info = await client.fetchUserInfo(config, tokens.access_token, sub, { DPoP });
        assert.equal(info.sub, sub);
        const refreshed = await client.refreshTokenGrant(
          config,
          tokens.refresh_token!,
          undefined,
          { DPoP },
        );
        assert.equal(refreshed.token_type, "dpop");
        // the refresh token is bound to the key: another key cannot redeem it
        const stranger = client.getDPoPHandle(config, await client.randomDPoPKeyPair("ES256"));
        await assert.rejects(
          client.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP: stranger }),
          (err: client.ResponseBodyError) => {
            assert.equal(err.error, "invalid_grant");
            assert.equal(err.error_description, "refresh_token is bound to another DPoP key");
            return true;
          },
        );
      });
    },
  ],
  [
    "openid-client (FAPI 2.0 shape): PAR with private_key_jwt, code + PKCE, DPoP with a nonce, userinfo, refresh",
    async () => {
      await withShared(async ({ url }) => {
        const { privateKey, publicKey } = await crypto.subtle.generateKey(
          { name: "ECDSA", namedCurve: "P-256" },
          true,
          ["sign", "verify"],
        ) as CryptoKeyPair;
        const jwk = { ...await crypto.subtle.exportKey("jwk", publicKey), kid: "fapi" };
        const registered = await fetch(`${url}/${FAPI_ISSUER}/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            redirect_uris: [REDIRECT],
            grant_types: ["authorization_code", "refresh_token"],
            token_endpoint_auth_method: "private_key_jwt",
            jwks: { keys: [jwk] },
            require_pushed_authorization_requests: true,
            dpop_bound_access_tokens: true,
          }),
        });
        assert.equal(registered.status, 201);
        const { client_id } = await registered.json();
        const config = await client.discovery(
          new URL(`${url}/${FAPI_ISSUER}`),
          client_id,
          undefined,
          client.PrivateKeyJwt({ key: privateKey, kid: "fapi" }),
          { execute: [client.allowInsecureRequests] },
        );
        // without PAR this client is refused at authorize
        const direct = await fetch(
          client.buildAuthorizationUrl(config, {
            redirect_uri: REDIRECT,
            scope: "openid",
          }),
          { redirect: "manual" },
        );
        assert.equal(direct.status, 400);
        await direct.body?.cancel();
        const DPoP = client.getDPoPHandle(config, await client.randomDPoPKeyPair("ES256"));
        const verifier = client.randomPKCECodeVerifier();
        const state = client.randomState();
        const pushedUrl = await client.buildAuthorizationUrlWithPAR(config, {
          redirect_uri: REDIRECT,
          scope: "openid api offline_access",
          code_challenge: await client.calculatePKCECodeChallenge(verifier),
          code_challenge_method: "S256",
          state,
        }, { DPoP });
        assert.ok(pushedUrl.searchParams.get("request_uri")!.startsWith(
          "urn:ietf:params:oauth:request_uri:",
        ));
        const tokens = await client.authorizationCodeGrant(
          config,
          await authorize(pushedUrl),
          { pkceCodeVerifier: verifier, expectedState: state },
          undefined,
          { DPoP },
        );
        assert.equal(tokens.token_type, "dpop");
        const sub = tokens.claims()!.sub;
        assert.equal(
          (await client.fetchUserInfo(config, tokens.access_token, sub, { DPoP })).sub,
          sub,
        );
        const refreshed = await client.refreshTokenGrant(
          config,
          tokens.refresh_token!,
          undefined,
          { DPoP },
        );
        assert.equal(refreshed.token_type, "dpop");
      });
    },
  ],
  [
    "openid-client: password, jwt-bearer and token exchange via genericGrantRequest",
    async () => {
      await withShared(async ({ url }) => {
        const config = await discover(url);
        const password = await client.genericGrantRequest(config, "password", {
          username: "alice",
          password: "x",
          scope: "openid api",
        });
        assert.equal(password.claims()!.sub, "alice");
        const exchanged = await client.genericGrantRequest(
          config,
          "urn:ietf:params:oauth:grant-type:token-exchange",
          {
            subject_token: password.access_token,
            subject_token_type: "urn:ietf:params:oauth:token-type:access_token",
            audience: "downstream",
          },
        );
        const info = await client.tokenIntrospection(config, exchanged.access_token);
        assert.equal(info.sub, "alice");
        assert.equal(info.aud, "downstream");
        const obo = await client.genericGrantRequest(
          config,
          "urn:ietf:params:oauth:grant-type:jwt-bearer",
          { assertion: password.access_token, scope: "api2" },
        );
        assert.equal((await client.tokenIntrospection(config, obo.access_token)).sub, "alice");
      });
    },
  ],
];

Deno.test("openid-client against mock-oidc", async (t) => {
  shared = await startOidc({}, {
    args: ["--dpop-nonce-issuers", `${NONCE_ISSUER},${FAPI_ISSUER}`],
  });
  try {
    await concurrentSteps(t, CASES, { concurrency: 4, name: ([name]) => name }, ([, fn]) => fn());
  } finally {
    await shared.stop();
  }
});
