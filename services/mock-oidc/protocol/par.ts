/**
 * Pushed authorization requests (RFC 9126): `POST /{issuer}/par` takes an authorization
 * request's parameters from an authenticated client (as the token endpoint authenticates it) and
 * answers a `request_uri` (`urn:ietf:params:oauth:request_uri:…`) valid for
 * {@linkcode PAR_LIFETIME_S}; `authorize` with that `request_uri` takes its parameters from the
 * pushed request only ({@linkcode pushedParameters}), and the `request_uri` is used up when it
 * yields a code.
 *
 * Loaded by the first pushed request, or the first `authorize` that carries a `request_uri`.
 *
 * @module
 */

import { authenticateClient } from "./client_auth.ts";
import { enforceAtToken, heldClient } from "./client_registry.ts";
import { type IssuerContext, randomTokenOf } from "./deps.ts";
import { readForm } from "./form.ts";
import { invalidClient, invalidRequest, OAuthError } from "./oauth_error.ts";
import { isUsableRedirect } from "./redirect_uri.ts";
import { jsonResponse } from "./responses.ts";
import { DpopError } from "./dpop_rules.ts";
import { lazyModuleAt } from "@svc/shared/lazy-module";

/** How long a `request_uri` can be used, seconds. */
export const PAR_LIFETIME_S = 60;

/** The `request_uri` prefix of RFC 9126 §2.2. */
export const REQUEST_URI_PREFIX = "urn:ietf:params:oauth:request_uri:";

/** Client authentication parameters: not part of the pushed authorization request. */
const CLIENT_AUTH_PARAMS = ["client_secret", "client_assertion", "client_assertion_type"];

const dpop = lazyModuleAt<typeof import("./dpop.ts")>(import.meta.resolve("./dpop.ts"));
const requestObject = lazyModuleAt<typeof import("./request_object.ts")>(
  import.meta.resolve("./request_object.ts"),
);
const assertions = lazyModuleAt<typeof import("./client_assertion.ts")>(
  import.meta.resolve("./client_assertion.ts"),
);

/** `POST /{issuer}/par`. */
export async function handlePushedRequest(ctx: IssuerContext): Promise<Response> {
  const params = await readForm(ctx.req);
  const client = authenticateClient(ctx.req, params, {
    issuerUrl: ctx.issuerUrl,
    endpointUrl: `${ctx.baseUrl}/par`,
  });
  if (client.clientId === undefined) throw invalidClient("client authentication is required");
  const held = await heldClient(ctx, client.clientId, 401);
  if (held) {
    if (client.assertion && client.method === held.metadata.token_endpoint_auth_method) {
      await (await assertions()).verifyClientAssertion(ctx, held, client);
    }
    enforceAtToken(held, client, "authorization_code");
  }
  // RFC 9126 §2.1: a request_uri cannot itself be pushed.
  if (params.has("request_uri")) throw invalidRequest("request_uri must not be pushed");
  // RFC 9126 §3: a pushed request object is checked now; its parameters are what is pushed.
  let request = params;
  if (params.has("request")) {
    const inner = new URLSearchParams(params);
    inner.set("client_id", client.clientId);
    request = await (await requestObject()).requestObjectParameters(ctx, inner);
  }
  const redirectUri = request.get("redirect_uri");
  if (!isUsableRedirect(redirectUri)) {
    throw invalidRequest("redirect_uri is missing or not an absolute URI");
  }
  if (held && !held.metadata.redirect_uris.includes(redirectUri)) {
    throw invalidRequest("redirect_uri is not registered for this client");
  }
  const pushed = new URLSearchParams();
  for (const [name, value] of request) {
    if (!CLIENT_AUTH_PARAMS.includes(name)) pushed.append(name, value);
  }
  pushed.set("client_id", client.clientId);
  // RFC 9449 §10.1: a proof at PAR binds the code to its key (dpop_jkt).
  const proof = ctx.req.headers.get("dpop");
  if (proof !== null) {
    let jkt: string;
    try {
      jkt = (await (await dpop()).verifyProof(ctx, {
        proof,
        method: "POST",
        url: `${ctx.baseUrl}/par`,
      })).jkt;
    } catch (err) {
      throw err instanceof DpopError ? err.atTokenEndpoint() : err;
    }
    if (pushed.has("dpop_jkt") && pushed.get("dpop_jkt") !== jkt) {
      throw new OAuthError(400, "invalid_dpop_proof", "dpop_jkt is not the DPoP proof's key");
    }
    pushed.set("dpop_jkt", jkt);
  }
  const requestUri = REQUEST_URI_PREFIX + randomTokenOf(ctx.deps);
  ctx.deps.state.pushedRequests.set(requestUri, {
    issuerId: ctx.issuerId,
    clientId: client.clientId,
    params: pushed,
    expiresAtMs: ctx.deps.clock.now() + PAR_LIFETIME_S * 1000,
  });
  return jsonResponse({ request_uri: requestUri, expires_in: PAR_LIFETIME_S }, {
    status: 201,
    noStore: true,
  });
}

/** `400 invalid_request_uri` (RFC 9101 §7): never redirected, the redirect URI is unknown. */
function invalidRequestUri(description: string): OAuthError {
  return new OAuthError(400, "invalid_request_uri", description);
}

/**
 * The parameters of the pushed request an authorization request's `request_uri` names (the
 * request's other parameters are ignored, RFC 9126 §4), with the `request_uri` to use up once a
 * code is issued. Throws `invalid_request_uri` for one unknown, used, expired, of another
 * issuer or another client.
 */
export function pushedParameters(
  ctx: IssuerContext,
  query: URLSearchParams,
): { params: URLSearchParams; requestUri: string } {
  const requestUri = query.get("request_uri")!;
  const pushed = ctx.deps.state.pushedRequests;
  const record = pushed.get(requestUri);
  if (!record || record.issuerId !== ctx.issuerId) {
    throw invalidRequestUri("request_uri is unknown or has been used");
  }
  if (ctx.deps.clock.now() >= record.expiresAtMs) {
    pushed.delete(requestUri);
    throw invalidRequestUri("request_uri has expired");
  }
  if (query.get("client_id") !== record.clientId) {
    throw invalidRequestUri("request_uri was pushed for another client_id");
  }
  return { params: new URLSearchParams(record.params), requestUri };
}
