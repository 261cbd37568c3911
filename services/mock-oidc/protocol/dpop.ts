/**
 * DPoP proofs (RFC 9449 §4.3) and server nonces (§8, §9). A proof is a JWS of `typ: dpop+jwt`
 * signed with one of {@linkcode DPOP_ALGORITHMS} by the public `jwk` in its header (no private
 * members), whose `htm` is the request's method, whose `htu` is the endpoint's URL (normalised,
 * without query and fragment), whose `iat` is within {@linkcode DPOP_PROOF_WINDOW_S} of the
 * process clock, whose `jti` was not seen in that window, with `ath` = the hash of the access
 * token where one is presented, and a current server nonce where the issuer demands one. The
 * result is the key's RFC 7638 thumbprint, the `jkt` tokens are bound to.
 *
 * Loaded only by requests that carry a `DPoP` header or `Authorization: DPoP` (`token.ts`,
 * `userinfo.ts`).
 *
 * @module
 */

import { calculateJwkThumbprint, compactVerify, importJWK, type JWK } from "jose";
import { encodeBase64 } from "@svc/shared/base64";
import { decodeJwt } from "../tokens/jwt.ts";
import type { IssuerContext } from "./deps.ts";
import {
  DPOP_ALGORITHMS,
  DPOP_NONCE_LIFETIME_S,
  DPOP_NONCE_ROTATE_S,
  DPOP_PROOF_WINDOW_S,
  DpopError,
  issuerListed,
} from "./dpop_rules.ts";
import { noteDpop } from "./dpop_challenges.ts";

/** What a proof is checked against. */
export interface ProofCheck {
  /** The `DPoP` header as received. */
  proof: string;
  /** The request's method (`htm`). */
  method: string;
  /** The endpoint's URL as the client sees it (`htu`). */
  url: string;
  /** The access token presented with the proof (`ath`). */
  accessToken?: string;
  /** A nonce challenge of the control plane applies: a server nonce is demanded. */
  demandNonce?: boolean;
}

/** A verified proof: the thumbprint of its key, and the nonce to hand out when nonces are on. */
export interface VerifiedProof {
  jkt: string;
  nonce?: string;
}

const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];

const invalid = (message: string) => new DpopError("invalid_dpop_proof", message);

/**
 * Verify a DPoP proof; throws {@linkcode DpopError}. The outcome, with the key's thumbprint where
 * the `jwk` has one, is noted for the captured-request log (`dpop` of the entry).
 */
export async function verifyProof(ctx: IssuerContext, check: ProofCheck): Promise<VerifiedProof> {
  const found: { jkt?: string } = {};
  try {
    const verified = await checkProof(ctx, check, found);
    noteDpop(ctx.req, { jkt: verified.jkt, verified: true });
    return verified;
  } catch (err) {
    const error = err instanceof DpopError ? err.code : "invalid_dpop_proof";
    noteDpop(ctx.req, { ...(found.jkt ? { jkt: found.jkt } : {}), verified: false, error });
    throw err;
  }
}

async function checkProof(
  ctx: IssuerContext,
  check: ProofCheck,
  found: { jkt?: string },
): Promise<VerifiedProof> {
  const jwt = /^[\w-]+\.[\w-]+\.[\w-]+$/.test(check.proof) ? decodeJwt(check.proof) : undefined;
  if (!jwt) throw invalid("DPoP proof must be one compact JWS");
  const { header, claims } = jwt;
  if (header.typ !== "dpop+jwt") throw invalid("DPoP proof typ must be dpop+jwt");
  const alg = header.alg;
  if (typeof alg !== "string" || !(DPOP_ALGORITHMS as readonly string[]).includes(alg)) {
    throw invalid(`DPoP proof alg must be one of ${DPOP_ALGORITHMS.join(", ")}`);
  }
  const jwk = header.jwk;
  if (typeof jwk !== "object" || jwk === null || Array.isArray(jwk)) {
    throw invalid("DPoP proof has no jwk header");
  }
  if (PRIVATE_MEMBERS.some((m) => m in jwk)) {
    throw invalid("DPoP proof jwk must be a public key without private members");
  }
  const jkt = await calculateJwkThumbprint(jwk as JWK, "sha256").catch(() => undefined);
  found.jkt = jkt;
  let key;
  try {
    key = await importJWK(jwk as JWK, alg);
    await compactVerify(check.proof, key, { algorithms: [alg] });
  } catch {
    throw invalid("DPoP proof signature does not verify with its jwk");
  }
  if (typeof claims.jti !== "string" || claims.jti === "") {
    throw invalid("DPoP proof has no jti");
  }
  if (claims.htm !== check.method) throw invalid(`DPoP proof htm must be ${check.method}`);
  if (typeof claims.htu !== "string" || normaliseHtu(claims.htu) !== normaliseHtu(check.url)) {
    throw invalid(`DPoP proof htu must be ${check.url}`);
  }
  const now = ctx.deps.clock.now();
  const iat = claims.iat;
  if (typeof iat !== "number") throw invalid("DPoP proof has no iat");
  if (iat * 1000 < now - DPOP_PROOF_WINDOW_S * 1000) {
    throw invalid(`DPoP proof iat is more than ${DPOP_PROOF_WINDOW_S}s old`);
  }
  if (iat * 1000 > now + DPOP_PROOF_WINDOW_S * 1000) {
    throw invalid(`DPoP proof iat is more than ${DPOP_PROOF_WINDOW_S}s in the future`);
  }
  if (check.accessToken !== undefined) {
    if (typeof claims.ath !== "string" || claims.ath !== await sha256(check.accessToken)) {
      throw invalid("DPoP proof ath does not match the access token");
    }
  }
  let nonce: string | undefined;
  if (check.demandNonce || issuerListed(ctx.deps.settings.dpopNonceIssuers, ctx.issuerId)) {
    nonce = currentNonce(ctx);
    if (typeof claims.nonce !== "string") {
      throw new DpopError(
        "use_dpop_nonce",
        "DPoP proof needs the server's nonce (DPoP-Nonce)",
        nonce,
      );
    }
    if (!nonceValid(ctx, claims.nonce)) {
      throw new DpopError("use_dpop_nonce", "DPoP proof nonce is not current", nonce);
    }
  }
  if (jkt === undefined) throw invalid("DPoP proof jwk has no thumbprint");
  // RFC 9449 §11.1: each proof once, remembered for as long as its iat is accepted.
  const seen = ctx.deps.state.dpopJtis;
  const id = JSON.stringify([ctx.issuerId, jkt, claims.jti]);
  const until = seen.get(id);
  if (until !== undefined && until >= now) throw invalid("DPoP proof jti has been used before");
  seen.delete(id);
  seen.set(id, (iat + DPOP_PROOF_WINDOW_S) * 1000);
  return { jkt, nonce };
}

/**
 * The issuer's current server nonce: made anew once the last is {@linkcode DPOP_NONCE_ROTATE_S}
 * old; each accepted for {@linkcode DPOP_NONCE_LIFETIME_S} after it was made.
 */
export function currentNonce(ctx: IssuerContext): string {
  const { dpopNonces } = ctx.deps.state;
  const now = ctx.deps.clock.now();
  const latest = dpopNonces.latest.get(ctx.issuerId);
  if (latest && now - latest.issuedAtMs < DPOP_NONCE_ROTATE_S * 1000 && now >= latest.issuedAtMs) {
    return latest.value;
  }
  const value = encodeBase64(crypto.getRandomValues(new Uint8Array(24)), { url: true });
  const made = { value, issuedAtMs: now };
  dpopNonces.latest.set(ctx.issuerId, made);
  dpopNonces.issued.set(value, { issuerId: ctx.issuerId, issuedAtMs: now });
  return value;
}

function nonceValid(ctx: IssuerContext, value: string): boolean {
  const made = ctx.deps.state.dpopNonces.issued.get(value);
  const now = ctx.deps.clock.now();
  return made !== undefined && made.issuerId === ctx.issuerId && now >= made.issuedAtMs &&
    now < made.issuedAtMs + DPOP_NONCE_LIFETIME_S * 1000;
}

/**
 * RFC 9449 §4.3 item 9: `htu` compared without query and fragment, after RFC 3986 §6.2.2 and
 * §6.2.3 normalisation (case of scheme and host, default port, dot segments, percent-encoding
 * case and unreserved characters). A value that is not a URL matches nothing.
 */
export function normaliseHtu(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "\u0000not a URL";
  }
  url.search = "";
  url.hash = "";
  const path = url.pathname.replace(/%[0-9a-f]{2}/gi, (escape) => {
    const char = String.fromCharCode(parseInt(escape.slice(1), 16));
    return /[A-Za-z0-9\-._~]/.test(char) ? char : escape.toUpperCase();
  });
  return `${url.protocol}//${url.host}${path}`;
}

/** base64url(SHA-256(text)): `ath`. */
async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return encodeBase64(new Uint8Array(digest), { url: true });
}
