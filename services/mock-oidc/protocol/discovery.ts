/**
 * Discovery: `/{issuer}/.well-known/openid-configuration`, and the RFC 8414 forms
 * `/{issuer}/.well-known/oauth-authorization-server` and
 * `/.well-known/oauth-authorization-server/{issuer}` (what oauth4webapi requests). An issuer's
 * `discovery` settings (`issuers.ts`) add fields or replace them.
 *
 * @module
 */

import { ALGORITHMS } from "../keys/algorithms.ts";
import type { IssuerContext } from "./deps.ts";
import { jsonResponse } from "./responses.ts";
import {
  ASSERTION_KEY_ALGORITHMS,
  ASSERTION_SECRET_ALGORITHMS,
  AUTH_METHODS,
} from "./client_metadata.ts";
import { registrationEndpoint } from "./registration.ts";
import { GRANT_TYPES } from "./grant_types.ts";
import { DPOP_ALGORITHMS, issuerListed } from "./dpop_rules.ts";
import type { ProtocolSettings } from "./deps.ts";

/** The discovery document of an issuer URL (`base`: the same without a trailing slash). */
function discoveryDocument(
  issuerUrl: string,
  base: string,
  issuerId: string,
  settings: ProtocolSettings,
): Record<string, unknown> {
  return {
    issuer: issuerUrl,
    authorization_endpoint: `${base}/authorize`,
    end_session_endpoint: `${base}/endsession`,
    revocation_endpoint: `${base}/revoke`,
    token_endpoint: `${base}/token`,
    userinfo_endpoint: `${base}/userinfo`,
    jwks_uri: `${base}/jwks`,
    introspection_endpoint: `${base}/introspect`,
    device_authorization_endpoint: `${base}/device_authorization`,
    registration_endpoint: registrationEndpoint(base),
    response_types_supported: ["code"],
    response_modes_supported: ["query", "fragment", "form_post"],
    authorization_response_iss_parameter_supported: true,
    grant_types_supported: [...GRANT_TYPES],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: [...ALGORITHMS],
    token_endpoint_auth_methods_supported: [...AUTH_METHODS],
    token_endpoint_auth_signing_alg_values_supported: [
      ...ASSERTION_KEY_ALGORITHMS,
      ...ASSERTION_SECRET_ALGORITHMS,
    ],
    introspection_endpoint_auth_methods_supported: [
      "client_secret_basic",
      "client_secret_post",
      "private_key_jwt",
    ],
    revocation_endpoint_auth_methods_supported: [
      "client_secret_basic",
      "client_secret_post",
      "private_key_jwt",
      "none",
    ],
    code_challenge_methods_supported: ["plain", "S256"],
    dpop_signing_alg_values_supported: [...DPOP_ALGORITHMS],
    request_parameter_supported: true,
    request_uri_parameter_supported: false,
    request_object_signing_alg_values_supported: [
      ...ASSERTION_KEY_ALGORITHMS,
      ...ASSERTION_SECRET_ALGORITHMS,
    ],
    pushed_authorization_request_endpoint: `${base}/par`,
    require_pushed_authorization_requests: issuerListed(settings.parRequiredIssuers, issuerId),
    client_id_metadata_document_supported: true,
    prompt_values_supported: ["none", "login", "consent", "select_account"],
  };
}

/** Handle a discovery request: the document, then the issuer's own fields over it. */
export function handleDiscovery(ctx: IssuerContext): Response {
  const overrides = ctx.deps.issuers.optionsOf(ctx.issuerId).discovery;
  return jsonResponse({
    ...discoveryDocument(ctx.issuerUrl, ctx.baseUrl, ctx.issuerId, ctx.deps.settings),
    ...overrides,
  });
}
