/**
 * The debugger's DPoP key (RFC 9449): an ES256 key pair made for one debugger run, kept only in
 * the sealed session cookie (never logged, never shown: the pages show its public half and its
 * RFC 7638 thumbprint), and the proofs it signs for the PAR, token and userinfo calls.
 *
 * @module
 */

import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  SignJWT,
} from "jose";
import { encodeBase64 } from "@svc/shared/base64";

/** The proofs' algorithm. */
const DPOP_KEY_ALG = "ES256";

/** A P-256 private JWK: what the session keeps. */
export interface DpopPrivateJwk {
  kty: "EC";
  crv: "P-256";
  x: string;
  y: string;
  d: string;
}

/** A fresh key pair for one debugger run, as its private JWK. */
export async function newDpopKey(): Promise<DpopPrivateJwk> {
  const { privateKey } = await generateKeyPair(DPOP_KEY_ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { kty: "EC", crv: "P-256", x: jwk.x!, y: jwk.y!, d: jwk.d! };
}

/** Whether `value` has the shape of {@linkcode DpopPrivateJwk} (a session read back). */
export function isDpopPrivateJwk(value: unknown): value is DpopPrivateJwk {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return v.kty === "EC" && v.crv === "P-256" &&
    ["x", "y", "d"].every((m) => typeof v[m] === "string" && /^[\w-]{43}$/.test(v[m] as string));
}

/** The public half: what a proof carries in its `jwk` header. */
export function publicJwkOf(key: DpopPrivateJwk): JWK {
  return { kty: key.kty, crv: key.crv, x: key.x, y: key.y };
}

/** The RFC 7638 SHA-256 thumbprint of the key: the `jkt` tokens are bound to. */
export async function thumbprintOf(key: DpopPrivateJwk): Promise<string> {
  return await calculateJwkThumbprint(publicJwkOf(key), "sha256");
}

/** What one proof is for. */
export interface ProofFor {
  /** `htm`: the request's method. */
  method: string;
  /** `htu`: the endpoint's URL. */
  url: string;
  /** `iat`, ms: the provider's clock (a frozen or advanced clock moves the proofs with it). */
  nowMs: number;
  /** The server's `DPoP-Nonce`, when one has been handed out. */
  nonce?: string;
  /** The access token presented with the proof: its hash goes in `ath`. */
  accessToken?: string;
}

/** A DPoP proof (`typ: dpop+jwt`) signed with `key`, with a fresh `jti`. */
export async function dpopProof(key: DpopPrivateJwk, proof: ProofFor): Promise<string> {
  const claims: Record<string, unknown> = {
    jti: crypto.randomUUID(),
    htm: proof.method,
    htu: proof.url,
    iat: Math.floor(proof.nowMs / 1000),
  };
  if (proof.nonce !== undefined) claims.nonce = proof.nonce;
  if (proof.accessToken !== undefined) claims.ath = await accessTokenHash(proof.accessToken);
  return await new SignJWT(claims)
    .setProtectedHeader({ typ: "dpop+jwt", alg: DPOP_KEY_ALG, jwk: publicJwkOf(key) })
    .sign(await importJWK(key, DPOP_KEY_ALG));
}

/** `ath`: base64url(SHA-256(access token)) (RFC 9449 §4.2). */
async function accessTokenHash(accessToken: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(accessToken));
  return encodeBase64(new Uint8Array(digest), { url: true });
}
