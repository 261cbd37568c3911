/**
 * One issuer's signing key in every form the service needs: WebCrypto keys, the public JWK,
 * the pre-serialised JWKS body, and its sign function (through the configured {@linkcode Signer},
 * else WebCrypto on the calling thread).
 *
 * @module
 */

import { type Algorithm, algorithmSpec } from "./algorithms.ts";
import type { Signer } from "./signer.ts";

/** A signing key bound to an issuer (`kid` = issuer id). */
export interface IssuerKey {
  kid: string;
  alg: Algorithm;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  /** Public JWK with `kid`, `alg`, `use: "sig"`. */
  publicJwk: JsonWebKey & { kid: string; alg: string; use: string };
  /** `{"keys":[publicJwk]}` serialised once, so JWKS requests do no work. */
  jwksJson: string;
  /** Produce a JWS signature over `data`. */
  sign(data: Uint8Array): Promise<Uint8Array>;
}

const PRIVATE_MEMBERS = new Set(["d", "p", "q", "dp", "dq", "qi", "oth", "k", "key_ops", "ext"]);

/** Private JWK fields a key needs, minus identity (`kid`/`alg` are assigned per issuer). */
export type PrivateJwk = JsonWebKey & { kid?: string };

/** Generate a fresh private key for `alg` (async; WebCrypto runs it off the event loop). */
export async function generatePrivateJwk(alg: Algorithm): Promise<PrivateJwk> {
  const spec = algorithmSpec(alg);
  const params = spec.kty === "RSA"
    ? {
      ...spec.webcrypto as RsaHashedImportParams,
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
    }
    : spec.webcrypto;
  const pair = await crypto.subtle.generateKey(params, true, ["sign", "verify"]) as CryptoKeyPair;
  return await crypto.subtle.exportKey("jwk", pair.privateKey);
}

/** Bind a private JWK to an issuer: import it everywhere and pre-serialise its JWKS. */
export async function bindIssuerKey(
  jwk: PrivateJwk,
  options: { kid: string; alg: Algorithm; signer?: Signer },
): Promise<IssuerKey> {
  const { kid, alg } = options;
  const spec = algorithmSpec(alg);
  const material: JsonWebKey = {};
  for (const [name, value] of Object.entries(jwk)) {
    if (!["kid", "alg", "use", "key_ops", "ext"].includes(name)) {
      (material as Record<string, unknown>)[name] = value;
    }
  }
  const privateKey = await crypto.subtle.importKey("jwk", material, spec.webcrypto, true, [
    "sign",
  ]);
  const publicMembers = Object.fromEntries(
    Object.entries(material).filter(([name]) => !PRIVATE_MEMBERS.has(name)),
  );
  const publicJwk = { ...publicMembers, kid, alg, use: "sig" };
  const publicKey = await crypto.subtle.importKey("jwk", publicMembers, spec.webcrypto, true, [
    "verify",
  ]);
  let sign: IssuerKey["sign"];
  if (options.signer) {
    const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", privateKey));
    sign = options.signer.bind(pkcs8, spec);
  } else {
    sign = async (data) =>
      new Uint8Array(await crypto.subtle.sign(spec.signParams, privateKey, data as BufferSource));
  }
  return {
    kid,
    alg,
    privateKey,
    publicKey,
    publicJwk,
    jwksJson: JSON.stringify({ keys: [publicJwk] }),
    sign,
  };
}

/** The algorithm a configured JWK signs with: its own `alg`, else `fallback` when compatible. */
export function algorithmOfJwk(jwk: PrivateJwk, fallback: Algorithm): Algorithm | undefined {
  const own = jwk.alg;
  const candidates = own ? [own] : [fallback, jwk.crv === "P-384" ? "ES384" : "ES256", "RS256"];
  for (const candidate of candidates) {
    const kty = candidate.startsWith("ES") ? "EC" : "RSA";
    const crvOk = kty !== "EC" || jwk.crv === (candidate === "ES256" ? "P-256" : "P-384");
    if (jwk.kty === kty && crvOk && isSupported(candidate)) return candidate as Algorithm;
  }
  return undefined;
}

function isSupported(alg: string): boolean {
  return /^(RS|PS)(256|384|512)$|^ES(256|384)$/.test(alg);
}
