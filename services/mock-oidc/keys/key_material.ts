/**
 * One issuer's signing key in every form the service needs: WebCrypto keys, the public JWK,
 * the pre-serialised JWKS body, and its sign function (through the configured {@linkcode Signer},
 * else WebCrypto on the calling thread).
 *
 * @module
 */

import { type Algorithm, algorithmOfCurve, algorithmSpec, isAlgorithm } from "./algorithms.ts";
import type { Signer } from "./signer.ts";
import { encodeBase64 } from "@svc/shared/base64";
import { lazyModuleAt } from "@svc/shared/lazy-module";

// The certificate writer loads with the first key, not at start (`deploy/lazy_modules.ts`).
const certificates = lazyModuleAt<typeof import("../config/self_signed_cert.ts")>(
  import.meta.resolve("../config/self_signed_cert.ts"),
);

/** A signing key bound to an issuer (`kid` = issuer id). */
export interface IssuerKey {
  kid: string;
  alg: Algorithm;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  /**
   * Public JWK with `kid`, `alg`, `use: "sig"`, `x5c` (a self-signed certificate of the key) and
   * its `x5t#S256`.
   */
  publicJwk: JsonWebKey & { kid: string; alg: string; use: string; x5c: string[] };
  /** `{"keys":[publicJwk]}` serialised once, so JWKS requests do no work. */
  jwksJson: string;
  /** Produce a JWS signature over `data`. */
  sign(data: Uint8Array): Promise<Uint8Array>;
}

const PRIVATE_MEMBERS = new Set(["d", "p", "q", "dp", "dq", "qi", "oth", "k", "key_ops", "ext"]);

/**
 * A key's self-signed certificate as its public JWK carries it: `x5c`'s one entry (standard
 * base64 DER) and `x5t#S256` (base64url SHA-256 of that DER). A key's certificate depends on the
 * key alone (fixed names and validity, a deterministic serial), so a known key's can be made
 * ahead: the bundled keys' are in `bundled_certs.json`.
 */
export interface KeyCertificate {
  /** The DER certificate, standard base64. */
  x5c: string;
  /** Its SHA-256, base64url. */
  x5tS256: string;
}

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

/**
 * Bind a private JWK to an issuer: import it everywhere and pre-serialise its JWKS.
 * `options.certificate` is the key's certificate made ahead (the bundled keys'), else it is made
 * here (`config/self_signed_cert.ts`, loaded with the first such key).
 */
export async function bindIssuerKey(
  jwk: PrivateJwk,
  options: { kid: string; alg: Algorithm; signer?: Signer; certificate?: KeyCertificate },
): Promise<IssuerKey> {
  const { kid, alg } = options;
  const spec = algorithmSpec(alg);
  const material = materialOf(jwk);
  const privateKey = await crypto.subtle.importKey("jwk", material, spec.webcrypto, true, [
    "sign",
  ]);
  const publicMembers = publicMembersOf(material);
  const certificate = options.certificate ?? await certificateOf(material);
  const publicJwk = publicJwkOf(jwk, { kid, alg, certificate });
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

/**
 * The public JWK an issuer's key is served as, from its private JWK and its certificate: what
 * {@linkcode bindIssuerKey} gives as `publicJwk`, without importing anything (the JWKS of a key
 * whose certificate was made ahead needs no WebCrypto).
 */
export function publicJwkOf(
  jwk: PrivateJwk,
  options: { kid: string; alg: Algorithm; certificate: KeyCertificate },
): IssuerKey["publicJwk"] {
  const { kid, alg, certificate: { x5c, x5tS256 } } = options;
  const publicMembers = publicMembersOf(materialOf(jwk));
  const publicJwk = { ...publicMembers, kid, alg, use: "sig", x5c: [x5c], "x5t#S256": x5tS256 };
  return publicJwk;
}

/** The key members of `jwk` (without `kid`, `alg`, `use`, `key_ops`, `ext`). */
function materialOf(jwk: PrivateJwk): JsonWebKey {
  const material: JsonWebKey = {};
  for (const [name, value] of Object.entries(jwk)) {
    if (!["kid", "alg", "use", "key_ops", "ext"].includes(name)) {
      (material as Record<string, unknown>)[name] = value;
    }
  }
  return material;
}

function publicMembersOf(material: JsonWebKey): JsonWebKey {
  return Object.fromEntries(
    Object.entries(material).filter(([name]) => !PRIVATE_MEMBERS.has(name)),
  );
}

/** `jwk`'s self-signed certificate, made now. */
async function certificateOf(jwk: JsonWebKey): Promise<KeyCertificate> {
  const cert = await (await certificates()).keyCertificate(jwk);
  const thumbprint = new Uint8Array(await crypto.subtle.digest("SHA-256", cert as BufferSource));
  return { x5c: encodeBase64(cert), x5tS256: encodeBase64(thumbprint, { url: true }) };
}

/** The algorithm a configured JWK signs with: its own `alg`, else `fallback` when compatible. */
export function algorithmOfJwk(jwk: PrivateJwk, fallback: Algorithm): Algorithm | undefined {
  const own = jwk.alg;
  // An EC or OKP key's curve names its one algorithm; an RSA key takes the fallback or RS256.
  const ofCurve = algorithmOfCurve(jwk.kty, jwk.crv);
  const candidates = own ? [own] : [fallback, ofCurve ?? "RS256"];
  for (const candidate of candidates) {
    if (!isAlgorithm(candidate)) continue;
    const spec = algorithmSpec(candidate);
    if (jwk.kty !== spec.kty) continue;
    if (spec.kty !== "RSA" && algorithmOfCurve(jwk.kty, jwk.crv) !== candidate) continue;
    return candidate;
  }
  return undefined;
}
