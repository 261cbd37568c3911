/**
 * Discovery: `/{issuer}/.well-known/openid-configuration`, and the RFC 8414 forms
 * `/{issuer}/.well-known/oauth-authorization-server` and
 * `/.well-known/oauth-authorization-server/{issuer}` (what oauth4webapi requests).
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

/** The discovery document of an issuer URL. */
function discoveryDocument(
  issuerUrl: string,
  issuerId: string,
  settings: ProtocolSettings,
): Record<string, unknown> {
  return {
    issuer: issuerUrl,
    authorization_endpoint: `${issuerUrl}/authorize`,
    end_session_endpoint: `${issuerUrl}/endsession`,
    revocation_endpoint: `${issuerUrl}/revoke`,
    token_endpoint: `${issuerUrl}/token`,
    userinfo_endpoint: `${issuerUrl}/userinfo`,
    jwks_uri: `${issuerUrl}/jwks`,
    introspection_endpoint: `${issuerUrl}/introspect`,
    device_authorization_endpoint: `${issuerUrl}/device_authorization`,
    registration_endpoint: registrationEndpoint(issuerUrl),
    response_types_supported: ["code"],
    response_modes_supported: ["query", "fragment", "form_post"],
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
    pushed_authorization_request_endpoint: `${issuerUrl}/par`,
    require_pushed_authorization_requests: issuerListed(settings.parRequiredIssuers, issuerId),
    client_id_metadata_document_supported: true,
    prompt_values_supported: ["none", "login", "consent", "select_account"],
  };
}

/** Handle a discovery request. */
export function handleDiscovery(ctx: IssuerContext): Response {
  return jsonResponse(discoveryDocument(ctx.issuerUrl, ctx.issuerId, ctx.deps.settings));
}
