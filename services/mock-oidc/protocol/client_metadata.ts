/**
 * Client metadata (RFC 7591 §2) as this provider understands it: the one validation shared by
 * dynamic registration and client ID metadata documents. Errors carry RFC 7591 §3.2.2 codes:
 * `invalid_redirect_uri` for a bad or missing `redirect_uris`, `invalid_client_metadata` for
 * anything else. Members the provider does not understand are dropped (RFC 7591 §2: "MUST
 * ignore").
 *
 * @module
 */

import { ALGORITHMS } from "../keys/algorithms.ts";
import { GRANT_TYPES } from "./grant_types.ts";
import { OAuthError } from "./oauth_error.ts";
import { isUsableRedirect } from "./redirect_uri.ts";

/** Token endpoint authentication methods a client may register. */
export const AUTH_METHODS = [
  "none",
  "client_secret_basic",
  "client_secret_post",
  "client_secret_jwt",
  "private_key_jwt",
] as const;

/** One of {@linkcode AUTH_METHODS}. */
export type AuthMethod = typeof AUTH_METHODS[number];

/** Methods that authenticate with a `client_secret` the provider issues. */
export const SECRET_METHODS: ReadonlySet<string> = new Set([
  "client_secret_basic",
  "client_secret_post",
  "client_secret_jwt",
]);

/** JWS algorithms of `private_key_jwt` assertions (RFC 7523 §2.2). */
export const ASSERTION_KEY_ALGORITHMS = [...ALGORITHMS, "Ed25519"] as const;

/** JWS algorithms of `client_secret_jwt` assertions (HMAC with the client's secret). */
export const ASSERTION_SECRET_ALGORITHMS = ["HS256", "HS384", "HS512"] as const;

/** Most `redirect_uris` of one client. */
export const MAX_REDIRECT_URIS = 32;

/** Longest accepted URI or text member, characters. */
export const MAX_VALUE_LENGTH = 2048;

/** Validated client metadata: the defaults of RFC 7591 §2 filled in. */
export interface ClientMetadata {
  "redirect_uris": string[];
  "token_endpoint_auth_method": AuthMethod;
  "grant_types": string[];
  "response_types": string[];
  /** The other understood members (client_name, scope, jwks_uri, …), as sent. */
  [member: string]: unknown;
}

const STRING_MEMBERS = [
  "client_name",
  "client_uri",
  "logo_uri",
  "scope",
  "tos_uri",
  "policy_uri",
  "jwks_uri",
  "software_id",
  "software_version",
  "token_endpoint_auth_signing_alg",
  "application_type",
];

/** `400 invalid_client_metadata` (RFC 7591 §3.2.2). */
export function invalidClientMetadata(description: string): OAuthError {
  return new OAuthError(400, "invalid_client_metadata", description);
}

/** `400 invalid_redirect_uri` (RFC 7591 §3.2.2). */
function invalidRedirectUri(description: string): OAuthError {
  return new OAuthError(400, "invalid_redirect_uri", description);
}

function stringList(value: unknown, member: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
    throw invalidClientMetadata(`${member} must be an array of strings`);
  }
  return value as string[];
}

/** Validate a metadata object; throws an {@linkcode OAuthError} with an RFC 7591 code. */
export function validateClientMetadata(input: unknown): ClientMetadata {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw invalidClientMetadata("client metadata must be a JSON object");
  }
  const body = input as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const member of STRING_MEMBERS) {
    if (body[member] === undefined) continue;
    if (typeof body[member] !== "string") throw invalidClientMetadata(`${member} must be a string`);
    if ((body[member] as string).length > MAX_VALUE_LENGTH) {
      throw invalidClientMetadata(`${member} is longer than ${MAX_VALUE_LENGTH} characters`);
    }
    out[member] = body[member];
  }
  if (body.contacts !== undefined) out.contacts = stringList(body.contacts, "contacts");
  for (const member of ["dpop_bound_access_tokens", "require_pushed_authorization_requests"]) {
    if (body[member] === undefined) continue;
    if (typeof body[member] !== "boolean") {
      throw invalidClientMetadata(`${member} must be a boolean`);
    }
    out[member] = body[member];
  }
  if (body.jwks !== undefined) {
    const jwks = body.jwks as { keys?: unknown } | null;
    if (typeof jwks !== "object" || jwks === null || !Array.isArray(jwks.keys)) {
      throw invalidClientMetadata("jwks must be a JWK Set: an object with a keys array");
    }
    if (out.jwks_uri !== undefined) {
      throw invalidClientMetadata("jwks and jwks_uri must not both be present");
    }
    out.jwks = jwks;
  }

  const method = body.token_endpoint_auth_method ?? "client_secret_basic";
  if (typeof method !== "string" || !(AUTH_METHODS as readonly string[]).includes(method)) {
    throw invalidClientMetadata(
      `token_endpoint_auth_method must be one of ${AUTH_METHODS.join(", ")}`,
    );
  }
  const grantTypes = body.grant_types === undefined
    ? ["authorization_code"]
    : stringList(body.grant_types, "grant_types");
  const unknownGrant = grantTypes.find((g) => !GRANT_TYPES.includes(g));
  if (unknownGrant !== undefined) {
    throw invalidClientMetadata(`grant type ${unknownGrant} is not supported`);
  }
  // RFC 7591's default response type `code` only makes sense with the code grant.
  const responseTypes = body.response_types === undefined
    ? (grantTypes.includes("authorization_code") ? ["code"] : [])
    : stringList(body.response_types, "response_types");
  const unknownResponse = responseTypes.find((r) => r !== "code");
  if (unknownResponse !== undefined) {
    throw invalidClientMetadata(`response type ${unknownResponse} is not supported`);
  }
  // RFC 7591 §2.1: authorization_code goes with response type code, both ways.
  if (grantTypes.includes("authorization_code") !== responseTypes.includes("code")) {
    throw invalidClientMetadata(
      "grant type authorization_code and response type code must be registered together",
    );
  }

  let redirectUris: string[] = [];
  if (body.redirect_uris !== undefined) {
    if (
      !Array.isArray(body.redirect_uris) || body.redirect_uris.some((v) => typeof v !== "string")
    ) {
      throw invalidRedirectUri("redirect_uris must be an array of strings");
    }
    redirectUris = body.redirect_uris as string[];
  }
  if (redirectUris.length > MAX_REDIRECT_URIS) {
    throw invalidRedirectUri(`at most ${MAX_REDIRECT_URIS} redirect_uris are accepted`);
  }
  for (const uri of redirectUris) {
    if (uri.length > MAX_VALUE_LENGTH) {
      throw invalidRedirectUri(`redirect_uri is longer than ${MAX_VALUE_LENGTH} characters`);
    }
    if (!isUsableRedirect(uri) || uri.includes("#")) {
      throw invalidRedirectUri(`redirect_uri must be an absolute URI without a fragment: ${uri}`);
    }
  }
  if (grantTypes.includes("authorization_code") && redirectUris.length === 0) {
    throw invalidRedirectUri("redirect_uris is required for the authorization_code grant");
  }
  return {
    ...out,
    "redirect_uris": redirectUris,
    "token_endpoint_auth_method": method as AuthMethod,
    "grant_types": grantTypes,
    "response_types": responseTypes,
  };
}
