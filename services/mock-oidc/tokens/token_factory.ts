/**
 * The ONE token factory: every signed token (grants, refresh, device flow, `/_mock/mint`)
 * comes from {@linkcode TokenFactory.issue}, so minted and granted tokens are byte-compatible.
 * Claim precedence, lowest first: base claims (sub, aud, nbf, iss, exp, iat, jti, nonce) →
 * `defaultClaims` (e.g. `tid`, interactive-login claims) → callback `claims` → the first
 * matching request mapping's claims → `claims` (explicit overrides, e.g. mint, `azp`).
 *
 * @module
 */

import type { Clock } from "../clock.ts";
import type { RotatingKeyStore } from "../keys/key_ring.ts";
import type { TokenCallback } from "./callback.ts";
import { signJwt } from "./jwt.ts";
import { expandTemplates, findMapping } from "./request_mappings.ts";

/** What to issue. */
export interface TokenRequest {
  issuerId: string;
  /** Value of `iss`. */
  issuerUrl: string;
  kind: "access_token" | "id_token";
  subject?: string;
  /** `aud`; null/undefined = none stamped; one entry is written as a string. */
  audience?: string[] | null;
  /** Scopes carried by an access token (`scope` claim). */
  scope?: string[];
  clientId: string;
  /** Explicit claims, applied last. */
  claims?: Record<string, unknown>;
  /** Claims a callback may override (e.g. `tid`, interactive-login claims). */
  defaultClaims?: Record<string, unknown>;
  /** JWS `typ`. @default "JWT" */
  typ?: string;
  /** Lifetime. @default 3600 */
  expirySeconds?: number;
  nonce?: string;
  /** Scenario / configured callback shaping this token. */
  callback?: TokenCallback;
  /** Token request parameters, for request mappings and templates. */
  params?: URLSearchParams;
  /** Sign with this key of the issuer (mint) instead of its active one. */
  kid?: string;
  /** Sign with a key of the issuer of this algorithm (mint), the active one first. */
  algorithm?: string;
}

/** A `kid` (or algorithm) the issuer has no key for (or whose grace is over). */
export class UnknownKid extends Error {
  constructor(issuerId: string, kid?: string, algorithm?: string) {
    const key = [kid, algorithm && `of algorithm ${algorithm}`].filter(Boolean).join(" ");
    super(`issuer ${issuerId} has no key ${key}`);
    this.name = "UnknownKid";
  }
}

/** A signed token and what went into it. */
export interface IssuedToken {
  token: string;
  kid: string;
  algorithm: string;
  issuer: string;
  claims: Record<string, unknown>;
  expiresAt: Date;
}

/** Issues signed tokens. */
export interface TokenFactory {
  issue(req: TokenRequest): Promise<IssuedToken>;
}

/** Create the token factory over the process key store and clock. */
export function createTokenFactory(
  options: { keys: RotatingKeyStore; clock: Clock; uuid?: () => string },
): TokenFactory {
  const uuid = options.uuid ?? (() => crypto.randomUUID());
  return {
    async issue(req) {
      const key = req.kid === undefined && req.algorithm === undefined
        ? await options.keys.issuerKey(req.issuerId)
        : await options.keys.mintKey(req.issuerId, { kid: req.kid, alg: req.algorithm });
      if (!key) throw new UnknownKid(req.issuerId, req.kid, req.algorithm);
      const shaped = applyCallback(req);
      const now = Math.floor(options.clock.now() / 1000);
      const exp = now + shaped.expirySeconds;
      const payload: Record<string, unknown> = {};
      if (shaped.subject !== undefined) payload.sub = shaped.subject;
      if (shaped.audience) {
        payload.aud = shaped.audience.length === 1 ? shaped.audience[0] : shaped.audience;
      }
      payload.nbf = now;
      payload.iss = req.issuerUrl;
      payload.exp = exp;
      payload.iat = now;
      payload.jti = uuid();
      if (req.nonce !== undefined) payload.nonce = req.nonce;
      if (req.kind === "access_token") {
        // RFC 9068 claims, which resource servers (e.g. oauth4webapi) require of at+jwt.
        if (shaped.typ.toLowerCase() === "at+jwt") payload.client_id = req.clientId;
        if (req.scope && req.scope.length > 0) payload.scope = req.scope.join(" ");
      }
      Object.assign(payload, req.defaultClaims, shaped.claims, req.claims);
      const token = await signJwt(key, { typ: shaped.typ }, payload);
      return {
        token,
        kid: key.kid,
        algorithm: key.alg,
        issuer: String(payload.iss),
        claims: payload,
        expiresAt: new Date(Number(payload.exp) * 1000),
      };
    },
  };
}

interface Shaped {
  subject?: string;
  audience?: string[] | null;
  typ: string;
  expirySeconds: number;
  claims: Record<string, unknown>;
}

function applyCallback(req: TokenRequest): Shaped {
  const shaped: Shaped = {
    subject: req.subject,
    audience: req.audience,
    typ: req.typ ?? "JWT",
    expirySeconds: req.expirySeconds ?? 3600,
    claims: {},
  };
  const callback = req.callback;
  if (!callback) return shaped;
  const access = req.kind === "access_token";
  if (callback.subject !== undefined) shaped.subject = callback.subject;
  if (callback.audience !== undefined && access) shaped.audience = callback.audience;
  if (callback.typ) shaped.typ = callback.typ;
  if (callback.expirySeconds !== undefined) shaped.expirySeconds = callback.expirySeconds;
  Object.assign(shaped.claims, callback.claims);
  const input = {
    params: req.params ?? new URLSearchParams(),
    clientId: req.clientId,
    subject: req.subject,
  };
  const mapping = findMapping(callback.requestMappings ?? [], input);
  if (mapping) {
    const claims = expandTemplates(mapping.claims ?? {}, input) as Record<string, unknown>;
    if (typeof claims.sub === "string") shaped.subject = claims.sub;
    if (mapping.typeHeader) shaped.typ = mapping.typeHeader;
    Object.assign(shaped.claims, claims);
  }
  // `aud` in callback claims moves the access-token audience; an id_token is always for the
  // client, so callbacks never move its audience.
  const aud = shaped.claims.aud;
  delete shaped.claims.aud;
  if (access && typeof aud === "string") shaped.audience = [aud];
  if (access && Array.isArray(aud)) shaped.audience = aud.map(String);
  return shaped;
}
