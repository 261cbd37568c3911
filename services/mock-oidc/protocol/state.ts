/**
 * In-memory protocol state: authorization codes (single use), refresh tokens, device
 * authorizations, revoked token ids and registered clients. Bounded so a long test run cannot
 * grow it forever.
 *
 * @module
 */

import { BoundedMap } from "./bounded_map.ts";
import { ClientRegistry } from "./client_registry.ts";
import { NonceChallenges } from "./dpop_challenges.ts";

/** What an authorization code stands for. */
export interface AuthorizationCode {
  issuerId: string;
  clientId: string;
  redirectUri: string;
  scope: string[];
  /** RFC 8707 resources of the authorization request. */
  resource: string[];
  nonce?: string;
  codeChallenge?: string;
  codeChallengeMethod?: "plain" | "S256";
  /** Interactive-login username. */
  subject?: string;
  /** Interactive-login claims (applied put-if-absent under callback claims). */
  loginClaims?: Record<string, unknown>;
  /** When the user authenticated (epoch seconds, process clock): the id_token `auth_time`. */
  authTime: number;
  /** RFC 9449 §10 `dpop_jkt`: the code is redeemed only with a proof of this key. */
  dpopJkt?: string;
}

/** What a refresh token redeems to: the original grant's identity. */
export interface RefreshGrant {
  issuerId: string;
  clientId: string;
  subject: string;
  scope: string[];
  /** RFC 8707 resources granted (the access token's `aud`); empty: the audience rules. */
  resource: string[];
  /** The original token request parameters (request mappings match them again). */
  params: URLSearchParams;
  loginClaims?: Record<string, unknown>;
  /** `auth_time` of the original authentication, when there was one. */
  authTime?: number;
  /** A public client's refresh token is bound to its DPoP key (RFC 9449 §5): the `jkt`. */
  dpopJkt?: string;
}

/** A device authorization (RFC 8628). */
export interface DeviceAuthorization {
  issuerId: string;
  clientId: string;
  userCode: string;
  scope: string[];
  params: URLSearchParams;
  expiresAtMs: number;
  status: "pending" | "approved" | "denied";
  subject?: string;
  loginClaims?: Record<string, unknown>;
  /** Set when the user code is approved (epoch seconds). */
  authTime?: number;
}

/** All protocol state of the process. */
export interface ProtocolState {
  codes: BoundedMap<string, AuthorizationCode>;
  refreshTokens: BoundedMap<string, RefreshGrant>;
  devices: BoundedMap<string, DeviceAuthorization>;
  /** user_code → device_code */
  userCodes: BoundedMap<string, string>;
  /** `jti`s of revoked access tokens. */
  revoked: BoundedMap<string, true>;
  /** RFC 7591 registrations, per issuer. */
  clients: ClientRegistry;
  /** Client assertions seen (issuer, client, `jti`) → until when they are remembered, epoch ms. */
  assertionJtis: BoundedMap<string, number>;
  /** JWK Sets fetched from clients' `jwks_uri`, by URL (`client_assertion.ts`). */
  clientJwks: BoundedMap<string, CachedJwks>;
  /** DPoP proofs seen (issuer, `jkt`, `jti`) → until when they are remembered, epoch ms. */
  dpopJtis: BoundedMap<string, number>;
  /** Pushed authorization requests by `request_uri` (`par.ts`). */
  pushedRequests: BoundedMap<string, PushedRequest>;
  /** DPoP server nonces (`dpop.ts`). */
  dpopNonces: {
    /** The nonce each issuer hands out now. */
    latest: BoundedMap<string, { value: string; issuedAtMs: number }>;
    /** Every nonce still remembered → its issuer and when it was made (epoch ms). */
    issued: BoundedMap<string, { issuerId: string; issuedAtMs: number }>;
  };
  /** Nonce challenges of `POST /_mock/dpop/nonce-challenge`. */
  dpopChallenges: NonceChallenges;
}

/** A pushed authorization request (RFC 9126). */
export interface PushedRequest {
  issuerId: string;
  clientId: string;
  /** The authorization request's parameters, without client authentication. */
  params: URLSearchParams;
  /** Epoch ms, process clock. */
  expiresAtMs: number;
}

/** A client's JWK Set as fetched, and until when it is reused. */
export interface CachedJwks {
  keys: Record<string, unknown>[];
  /** Epoch ms, process clock. */
  expiresAtMs: number;
}

/** Create empty protocol state. */
export function createProtocolState(options: { maxEntries?: number } = {}): ProtocolState {
  const max = options.maxEntries ?? 100_000;
  return {
    codes: new BoundedMap(max),
    refreshTokens: new BoundedMap(max),
    devices: new BoundedMap(max),
    userCodes: new BoundedMap(max),
    revoked: new BoundedMap(max),
    clients: new ClientRegistry(),
    assertionJtis: new BoundedMap(max),
    clientJwks: new BoundedMap(1_000),
    dpopJtis: new BoundedMap(max),
    pushedRequests: new BoundedMap(max),
    dpopNonces: { latest: new BoundedMap(max), issued: new BoundedMap(max) },
    dpopChallenges: new NonceChallenges(),
  };
}
